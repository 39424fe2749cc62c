"""The one place where a request becomes: check, append to the log, change state, tell phones, set LEDs."""
from __future__ import annotations

import hashlib
import random
import secrets
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Optional

from . import views
from .db import Store
from .game.errors import RuleError
from .game.record import to_record
from .game.rules import apply, new_game
from .game.setup import (check_cards, check_colors, check_layout, check_mode, check_removed, deal,
                         make_setup, random_layout)
from .game.state import Action, Bid, Pass, Seat, State
from .live import Hub


class Refused(Exception):
    """A request the table turns down for a reason other than the rules (who you are, what phase)."""

    def __init__(self, status: int, key: str, **params):
        super().__init__(key)
        self.status = status
        self.key = key
        self.params = params


def device_id(cookie: str) -> str:
    """What the log stores for a device: a hash, so the database never holds a usable cookie."""
    return hashlib.sha256(cookie.encode()).hexdigest()[:32]


@dataclass
class Game:
    """One game in memory: rebuilt from its log on start, then kept in step with it."""

    id: str
    seq: int = 0
    host: Optional[str] = None
    mode: str = "family"
    colors: tuple[str, ...] = ()
    removed: frozenset[str] = frozenset()
    tokens: dict = field(default_factory=dict)
    deal: str = "app"
    names: dict = field(default_factory=dict)
    devices: dict = field(default_factory=dict)       # colour -> device id
    cards: dict = field(default_factory=dict)         # colour -> (area, neighborhood)
    states: list = field(default_factory=list)        # states[k]: after k actions; empty in the lobby
    actions: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _public: Optional[tuple[int, dict]] = field(default=None, repr=False)
    _public_json: Optional[tuple[dict, str]] = field(default=None, repr=False)

    @property
    def phase(self) -> str:
        if not self.states:
            return "lobby"
        return "finished" if self.states[-1].finished else "playing"

    @property
    def state(self) -> Optional[State]:
        return self.states[-1] if self.states else None

    def seat_of(self, device: Optional[str]) -> Optional[str]:
        for color, d in self.devices.items():
            if d == device:
                return color
        return None

    # -- the log's events, applied to memory (already checked; replay uses the same code) --

    def mutate(self, kind: str, body: dict, device: Optional[str], after: Optional[State] = None) -> None:
        if kind == "create":
            self.host = device
            self._configure(body)
        elif kind == "setup":
            self._configure(body)
        elif kind == "seat":
            self.devices[body["color"]] = device
            self.names[body["color"]] = body["name"]
        elif kind == "release":
            self.devices.pop(body["color"], None)
            self.names.pop(body["color"], None)
            if not self.states:
                self.cards.pop(body["color"], None)
        elif kind == "cards":
            self.cards[body["color"]] = (body["area"], body.get("neighborhood"))
        elif kind == "start":
            self.cards = {c: tuple(v) for c, v in body["cards"].items()}
            self.states = [new_game(self.setup())]
        elif kind == "action":
            action = _action(body)
            # `after`: the state the table already computed when it checked the action.
            self.states.append(after if after is not None else apply(self.states[-1], action))
            self.actions.append(action)
        elif kind == "undo":
            self.states.pop()
            self.actions.pop()
        else:
            raise ValueError(f"unknown event kind {kind!r}")
        self.seq += 1

    def _configure(self, body: dict) -> None:
        self.mode = body["mode"]
        self.colors = tuple(body["players"])
        self.removed = frozenset(body["removed_districts"])
        self.tokens = dict(body["tokens"])
        self.deal = body["deal"]
        for gone in set(self.devices) - set(self.colors):
            self.devices.pop(gone)
            self.names.pop(gone, None)
        self.cards = {}

    def setup(self):
        seats = [Seat(c, self.names.get(c, ""), *self.cards.get(c, (None, None))) for c in self.colors]
        return make_setup(self.mode, seats, self.removed, self.tokens)


def _action(body: dict) -> Action:
    if body.get("pass"):
        return Pass(body["player"])
    return Bid(body["player"], body["bid"], body["value"])


class Table:
    """Every game on this Pi, its log, its listeners and the LEDs."""

    def __init__(self, store: Store, hub: Hub, leds=None):
        self.store = store
        self.hub = hub
        self.leds = leds
        self.games: dict[str, Game] = {}
        self.broken: dict[str, str] = {}   # game id -> why its log could not be replayed
        self._lock = threading.Lock()
        self.current: Optional[str] = None

    def load(self) -> None:
        """Rebuild every game by replaying its log."""
        for gid in self.store.games():
            game = Game(gid)
            try:
                for seq, kind, body, device in self.store.events(gid):
                    game.mutate(kind, body, device)
            except Exception as e:  # any corruption: hand-edited file, older format, bug
                # One unreadable game must not keep the others (and the table) from starting.
                self.broken[gid] = f"event {game.seq + 1}: {e}"
                continue
            self.games[gid] = game
        # The game whose log moved last, never the clock's latest: a Pi without RTC or NTP jumps in time.
        last = self.store.last_moved()
        self.current = last if last in self.games else next(reversed(self.games), None)
        if self.current:
            self._show_leds(self.games[self.current])

    def get(self, gid: str) -> Game:
        game = self.games.get(gid)
        if game is None:
            raise Refused(404, "no_game")
        return game

    def view_json(self, gid: str, device: Optional[str]) -> str:
        """This device's view of a game, as the JSON text its socket gets too."""
        return views.view_json(self.get(gid), device)

    def view(self, gid: str, device: Optional[str]) -> Optional[dict]:
        game = self.games.get(gid)
        return views.view(game, device) if game else None

    # -- the one path every change takes --

    def _commit(self, game: Game, kind: str, body: dict, device: Optional[str],
                call_ended: bool = False, after: Optional[State] = None) -> str:
        """Append the event (durable on return), apply it, tell every phone, set the LEDs; this device's view as JSON."""
        self.store.append(game.id, game.seq + 1, kind, body, device)
        game.mutate(kind, body, device, after)
        self.current = game.id
        self.hub.publish(game.id, partial(views.view_json, game))
        self._show_leds(game, call_ended)
        return views.view_json(game, device)

    def _show_leds(self, game: Game, call_ended: bool = False) -> None:
        if self.leds is None:
            return
        st = game.state
        winners = views.public(game).get("scores", {}).get("winners", []) if st and st.finished else []
        call_winner = st.last_call.player if call_ended and st and st.last_call else None
        self.leds.show(game.phase, [c for c in game.colors if c in game.devices],
                       st.to_act_color if st else None, winners, call_winner)

    # -- what devices may ask --

    def create(self, options: dict, device: str) -> Game:
        body = self._check_options(options)
        gid = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        game = Game(gid)
        with self._lock:
            self.games[gid] = game
        with game.lock:
            self._commit(game, "create", body, device)
        return game

    def change_setup(self, gid: str, options: dict, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            return self._commit(game, "setup", self._check_options(options), device)

    def _check_options(self, o: dict) -> dict:
        mode = check_mode(o["mode"])
        colors = check_colors(o["players"])
        removed = check_removed(len(colors), o.get("removed_districts") or [])
        seed = o.get("seed")
        layout = o.get("layout", "random")
        if layout == "random":
            rng = random.Random(seed if seed is not None else secrets.randbits(64))
            tokens = random_layout(len(colors), removed, rng)
        else:
            tokens = dict(check_layout(len(colors), removed, layout["tokens"]))
        return {"mode": mode, "players": list(colors), "removed_districts": sorted(removed),
                "tokens": tokens, "deal": o.get("deal", "app"), "seed": seed}

    def claim_seat(self, gid: str, color: str, name: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            holder = game.devices.get(color)
            if holder == device and game.names.get(color) == name:
                return views.view_json(game, device)
            if holder is not None and holder != device:
                raise Refused(409, "seat_taken")
            mine = game.seat_of(device)
            if mine is not None and mine != color:
                raise Refused(409, "one_seat", color=mine)
            return self._commit(game, "seat", {"color": color, "name": name}, device)

    def release_seat(self, gid: str, color: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if color not in game.devices:
                raise Refused(404, "no_seat", color=color)
            return self._commit(game, "release", {"color": color}, device)

    def enter_cards(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._lobby_only(game)
            if game.devices.get(color) != device:
                raise Refused(403, "not_your_seat")
            if game.deal != "physical":
                raise Refused(409, "app_deals")
            # Checked against this game's decks only. Never against the other players' cards: a
            # "dealt twice" answer would tell this phone what another player holds (start checks that).
            if game.mode == "family" and len(game.colors) == 2 and area == "borders":
                raise RuleError("no_borders_2p", color=color)
            check_cards(game.mode, [Seat(color, "", area, hood)])
            return self._commit(game, "cards", {"color": color, "area": area, "neighborhood": hood}, device)

    def start(self, gid: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            self._lobby_only(game)
            if any(c not in game.devices for c in game.colors):
                raise Refused(409, "seats_free")
            if game.deal == "physical":
                if any(c not in game.cards for c in game.colors):
                    raise Refused(409, "cards_missing")
                cards = {c: list(game.cards[c]) for c in game.colors}
                try:
                    check_cards(game.mode, [Seat(c, "", *game.cards[c]) for c in game.colors])
                except RuleError:
                    # The host is told that two entries clash, not which card: that is someone's secret.
                    raise Refused(409, "cards_clash") from None
            else:
                # Never from the game's seed: whoever knew it could work out every secret card.
                rng = random.Random(secrets.randbits(128))
                cards = {c: list(v) for c, v in zip(game.colors, deal(game.mode, len(game.colors), rng))}
            # A start the replay would refuse must never reach the log: check the whole setup first.
            make_setup(game.mode, [Seat(c, game.names.get(c, ""), *cards[c]) for c in game.colors],
                       game.removed, game.tokens)
            return self._commit(game, "start", {"cards": cards}, device)

    def act(self, gid: str, device: str, move: dict, expect_seq: Optional[int]) -> str:
        game = self.get(gid)
        with game.lock:
            color = game.seat_of(device)
            if color is None:
                raise Refused(403, "not_seated")
            if expect_seq is not None and expect_seq != game.seq:
                raise Refused(409, "stale")
            st = game.state
            if st is None:
                raise Refused(409, "not_started")
            action = Pass(color) if move.get("pass") else Bid(color, move["bid"], move["value"])
            # Raises RuleError (nothing appended, nothing changed), also for an automatic pass: the rules' own.
            after = apply(st, action)
            return self._commit(game, "action", action.to_json(), device,
                                call_ended=sum(after.built_count) > sum(st.built_count), after=after)

    def undo(self, gid: str, device: str) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if not game.actions:
                raise Refused(409, "nothing_to_undo")
            return self._commit(game, "undo", {"action": len(game.actions)}, device)

    def record(self, gid: str) -> dict:
        game = self.get(gid)
        with game.lock:
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            return to_record(game.state.setup, game.actions)

    def _host_only(self, game: Game, device: str) -> None:
        if device != game.host:
            raise Refused(403, "not_host")

    def _lobby_only(self, game: Game) -> None:
        if game.phase != "lobby":
            raise Refused(409, "started")
