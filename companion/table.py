"""The one place where a request becomes: check, append to the log, change state, tell phones, set LEDs."""
from __future__ import annotations

import hashlib
import random
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import partial
from typing import Optional

from . import history, views
from .db import Store
from .game.errors import RuleError
from .game.record import to_record
from .game.rules import apply, new_game
from .game.setup import (check_cards, check_colors, check_layout, check_mode, check_removed, deal,
                         make_setup, random_layout)
from .game.state import Action, Bid, Pass, Seat, State
from .live import Hub
from .names import same as same_name


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
    """One game in memory: rebuilt from its log when first needed, then kept in step with it.

    It keeps its current state and its actions, not every state in between: undo replays from the setup.
    """

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
    state: Optional[State] = None                      # None in the lobby
    actions: list = field(default_factory=list)
    changes: dict = field(default_factory=dict)       # device -> seat, release, cards and setup events it logged
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _public: Optional[tuple[int, dict]] = field(default=None, repr=False)
    _public_json: Optional[tuple[dict, str]] = field(default=None, repr=False)

    @property
    def phase(self) -> str:
        if self.state is None:
            return "lobby"
        return "finished" if self.state.finished else "playing"

    def seat_of(self, device: Optional[str]) -> Optional[str]:
        for color, d in self.devices.items():
            if d == device:
                return color
        return None

    # -- the log's events, applied to memory (already checked; replay uses the same code) --

    def mutate(self, kind: str, body: dict, device: Optional[str], after: Optional[State] = None) -> None:
        if kind in ("seat", "release", "cards", "setup"):
            self.changes[device] = self.changes.get(device, 0) + 1
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
            if self.state is None:
                self.cards.pop(body["color"], None)
        elif kind == "cards":
            self.cards[body["color"]] = (body["area"], body.get("neighborhood"))
        elif kind == "start":
            self.cards = {c: tuple(v) for c, v in body["cards"].items()}
            self.state = new_game(self.setup())
        elif kind == "action":
            action = _action(body)
            # `after`: the state the table already computed when it checked the action.
            self.state = after if after is not None else apply(self.state, action)
            self.actions.append(action)
        elif kind == "undo":
            self.actions.pop()
            state = new_game(self.state.setup)
            for action in self.actions:
                state = apply(state, action)
            self.state = state
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
    """The games on this Pi being played (ended ones are read from SQLite when opened), the log, listeners, LEDs."""

    OPENED = 8   # ended games kept in memory after someone opened them (a history page, an old phone link)

    def __init__(self, store: Store, hub: Hub, leds=None):
        self.store = store
        self.hub = hub
        self.leds = leds
        self.games: dict[str, Game] = {}   # games not ended, and the current one
        self.opened: OrderedDict[str, Game] = OrderedDict()
        self.broken: dict[str, str] = {}   # game id -> why its log could not be replayed
        self._lock = threading.Lock()
        self.current: Optional[str] = None

    def load(self) -> None:
        """Replay the games not ended; an ended game is a summary row, read when someone opens it.

        A game that ended before summaries existed is replayed once, here, and its summary written.
        """
        newest: Optional[tuple[float, str]] = None
        backfill = []
        for gid, created in self.store.open_games():
            game = self._replay(gid)
            if game is None:
                continue
            if game.phase in history.ENDED:
                backfill.append(history.record_play(self._summary(game, game.state), game.seq))
            else:
                self.games[gid] = game
            newest = max(newest or (created, gid), (created, gid))
        if backfill:   # one transaction, one fsync
            self.store.write(lambda conn, at: [write(conn, at) for write in backfill])
        # The game whose log moved last, never the clock's latest: a Pi without RTC or NTP jumps in time.
        last = self.store.last_moved()
        game = self.find(last) if last else None
        if game is None:   # its log could not be replayed: the newest game that can
            latest = self.store.latest_play()
            if latest and (newest is None or (latest[1], latest[0]) > newest):
                newest = (latest[1], latest[0])
            game = self.find(newest[1]) if newest else None
        if game is not None:
            self.games[game.id] = game
            self.opened.pop(game.id, None)
            self.current = game.id
            self._show_leds(game)

    def _replay(self, gid: str) -> Optional[Game]:
        game = Game(gid)
        try:
            for seq, kind, body, device in self.store.events(gid):
                game.mutate(kind, body, device)
        except Exception as e:  # any corruption: hand-edited file, older format, bug
            # One unreadable game must not keep the others (and the table) from starting.
            self.broken[gid] = f"event {game.seq + 1}: {e}"
            return None
        return game if game.seq else None

    def find(self, gid: str) -> Optional[Game]:
        """A game in memory, or an ended one read from its log (kept among the few last opened)."""
        with self._lock:
            game = self.games.get(gid)
            if game is None:
                game = self.opened.get(gid)
                if game is not None:
                    self.opened.move_to_end(gid)
            if game is not None or gid in self.broken or len(gid) > 64:
                return game
        game = self._replay(gid)   # outside the table's lock: a slow read holds up no other game
        if game is None:
            return None
        with self._lock:
            known = self.games.get(gid) or self.opened.get(gid)
            if known is not None:
                return known
            if game.phase in history.ENDED:
                self.opened[gid] = game
                self._trim()
            else:
                self.games[gid] = game
        return game

    def _trim(self) -> None:
        while len(self.opened) > self.OPENED:
            self.opened.popitem(last=False)

    def _keep(self, game: Game) -> None:
        """After a change: this game is the current one and stays; an ended game it replaces leaves memory."""
        with self._lock:
            before = self.current
            self.current = game.id
            self.games[game.id] = game
            self.opened.pop(game.id, None)
            old = self.games.get(before) if before and before != game.id else None
            if old is not None and old.phase in history.ENDED:
                del self.games[before]
                self.opened[before] = old
                self._trim()

    def get(self, gid: str) -> Game:
        game = self.find(gid)
        if game is None:
            raise Refused(404, "no_game")
        return game

    def _summary(self, game: Game, state: Optional[State], status: Optional[str] = None) -> dict:
        status = status or ("finished" if state is not None and state.finished else game.phase)
        return history.summarize(game.id, state, status, game.names, game.mode, game.colors)

    def view_json(self, gid: str, device: Optional[str]) -> str:
        """This device's view of a game, as the JSON text its socket gets too."""
        return views.view_json(self.get(gid), device)

    def view(self, gid: str, device: Optional[str]) -> Optional[dict]:
        game = self.find(gid)
        return views.view(game, device) if game else None

    # -- the one path every change takes --

    def _commit(self, game: Game, kind: str, body: dict, device: Optional[str],
                call_ended: bool = False, after: Optional[State] = None) -> str:
        """Append the event (durable on return), apply it, tell every phone, set the LEDs; this device's view as JSON."""
        also = None
        if after is not None and after.finished:
            # The summary the history reads is written with the event that ends the game, or not at all.
            also = history.record_play(self._summary(game, after), game.seq + 1)
        elif kind == "abandon":
            also = history.record_play(self._summary(game, game.state, "abandoned"), game.seq + 1)
        elif kind == "undo" and game.phase == "finished":
            also = history.forget_play(game.id)
        self.store.append(game.id, game.seq + 1, kind, body, device, also=also)
        game.mutate(kind, body, device, after)
        self._keep(game)
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
        with game.lock:
            try:
                self._commit(game, "create", body, device)
            except BaseException:
                with self._lock:  # not in the log: not a game
                    self.games.pop(gid, None)
                raise
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
            if any(same_name(other, name) for c, other in game.names.items() if c != color):
                raise Refused(409, "name_taken")   # two "Ann"s at one table: nobody knows whose turn it is
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

    def undo(self, gid: str, device: str, expect_seq: Optional[int] = None) -> str:
        game = self.get(gid)
        with game.lock:
            self._host_only(game, device)
            if expect_seq is not None and expect_seq != game.seq:
                raise Refused(409, "stale")   # a retried undo must not take back a second action
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
