"""The lobby: a new game, its setup, the seats it has, the cards dealt by hand, and the start."""
from __future__ import annotations

import random
import secrets
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Optional

from companion import codes, pi_seat
from companion.errors import Refused
from companion.game.board import PERIPHERAL, load_board
from companion.game.errors import RuleError
from companion.game.setup import (
    check_cards,
    check_colors,
    check_layout,
    check_mode,
    check_removed,
    deal,
    make_setup,
    random_layout,
)
from companion.game.state import Seat
from companion.store.first_game import first_game
from companion.table import board_steps, checks
from companion.model.game import Game, clashing
from companion.store import events
from companion.model.seats import level_of, people, pi_seats

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.store.db import Store
    from companion.table.commit import OnePath
    from companion.table.memory import Games, Shelf

CLASHES = 2   # physical-deal clashes in one lobby before the app deals the cards itself


def _removed_for(players: int, removed: frozenset) -> frozenset:
    """Districts out of play for a smaller table: those already out stay out, and the next the rules allow joins them."""
    need = 4 - players
    if len(removed) >= need:
        return frozenset(removed)
    pairs = load_board().district_pairs
    for pair in sorted(pairs, key=lambda p: sorted(PERIPHERAL.index(d) for d in p)):
        if need == 2 and removed <= pair:
            return pair
    return frozenset({next(d for d in PERIPHERAL if d not in removed)}) if need == 1 else frozenset(removed)


def check_options(o: dict) -> dict:
    """A game's setup as the host asked for it, checked by the rules: the body of its create or setup event."""
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
    body = {"mode": mode, "players": list(colors), "removed_districts": sorted(removed),
            "tokens": tokens, "deal": o.get("deal", "app"), "seed": seed,
            "layout": "random" if layout == "random" else "hand", "pace": board_steps.pace_of(o)}
    if o.get("hints"):
        body["hints"] = True   # "What would the Pi do?" allowed (table/reviews.py)
    return body


class Lobby:
    """What the host and the seats do before the first call: built with the games and their shelf, the store and
    the one path."""

    def __init__(self, games: Games, shelf: Shelf, store: Store, path: OnePath):
        self.games, self.shelf, self.store, self.path = games, shelf, store, path

    def create(self, options: dict, device: str, extra: Optional[dict] = None) -> Game:
        """A new game; it takes the table display only if no game is in progress there, or its host asks."""
        body = check_options(options)
        body.update(extra or {})
        return self.create_from(body, device)

    def create_from(self, body: dict, device: str) -> Game:
        """A new game from its checked create event (a game to play, or a board to score)."""
        with self.shelf.lock:
            gid = codes.new(codes.GAME_LENGTH)
            while gid in self.shelf.games or self.store.exists(gid):
                gid = codes.new(codes.GAME_LENGTH)
            shown_now = self.shelf.games.get(self.shelf.current) if self.shelf.current else None
            body["shown"] = (shown_now is None or not shown_now.in_progress or shown_now.can_host(device)
                             or body.get("from") == shown_now.id)
            game = self.games.new_game(gid)
            self.shelf.games[gid] = game
        with game.lock:
            try:
                self.path.commit(game, events.Create(body), device)
            except BaseException:
                with self.shelf.lock:  # not in the log: not a game
                    self.shelf.games.pop(gid, None)
                raise
        return game

    @contextmanager
    def for_host(self, gid: str, device: str) -> Iterator[Game]:
        """The lobby's changes (setup, seats, the Pi's seats, the start): the host's alone, before the start, under
        the game's lock throughout, so no change slips between the checks and the commit."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            checks.lobby_only(game)
            yield game

    def change_setup(self, gid: str, options: dict, device: str) -> str:
        with self.for_host(gid, device) as game:
            if game.clashes >= CLASHES and options.get("deal") == "physical":
                raise Refused(409, "app_deals_now")   # the deal the table was told the app makes stays the app's
            return self.path.commit(game, events.Setup(check_options(options)), device)

    def remove_seat(self, gid: str, color: str, device: str) -> str:
        """Fewer players: the seat goes, and districts and tokens follow the rules for the new count."""
        with self.for_host(gid, device) as game:
            if color not in game.colors:
                raise Refused(404, "no_seat", color=color)
            if color in game.devices:
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            players = [c for c in game.colors if c != color]
            removed = _removed_for(len(players), game.removed)
            options = {"mode": game.mode, "players": players, "removed_districts": sorted(removed),
                       "deal": game.deal, "layout": "random", "hints": game.hints_on}
            if game.layout == "hand" and len(players) == len(game.colors):
                options["layout"] = {"tokens": game.tokens}
            body = check_options(options)
            body["removed_seat"] = color
            if game.deal == "physical":
                # never a completed deal left unchecked (the Pi's seats are dealt at the start, from what is left)
                persons = [c for c in players if not level_of(game.devices.get(c))]
                body.update(self.deal_check(game, game.cards, persons))
            return self.path.commit(game, events.Setup(body), device)

    def enter_cards(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.lobby_only(game)
            if game.devices.get(color) != device:
                raise Refused(403, "not_your_seat")
            if game.deal != "physical":
                raise Refused(409, "app_deals")
            if game.cards_locked:
                raise Refused(409, "cards_locked")
            # Checked against this game's decks only. Never against the other players' cards one by one:
            # a "dealt twice" answer would tell this phone what another player holds.
            if game.mode == "family" and len(game.colors) == 2 and area == "borders":
                raise RuleError("no_borders_2p", color=color)
            check_cards(game.mode, [Seat(color, "", area, hood)])
            body = {"color": color, "area": area, "neighborhood": hood}
            body.update(self.deal_check(game, dict(game.cards, **{color: (area, hood)}), people(game)))
            return self.path.commit(game, events.Cards(body), device)

    def deal_check(self, game: Game, entered: dict, colors) -> dict:
        """Once every seat has entered (by a last entry or a removed seat), every entry is checked at once.
        A clash names nobody and no card (every screen is told, every seat enters again: one bit per probe, in
        front of the table); the CLASHES-th hands the deal to the app. Without a clash the cards are fixed."""
        if not all(c in entered for c in colors) or not clashing(game.mode, [entered[c] for c in colors]):
            return {}
        return {"clash": True, "app_deals": True} if game.clashes + 1 >= CLASHES else {"clash": True}

    def start(self, gid: str, device: str) -> str:
        with self.for_host(gid, device) as game:
            if any(c not in game.devices for c in game.colors):
                raise Refused(409, "seats_free")
            if not people(game):
                raise Refused(409, "pi_last_person")
            if game.deal == "physical":
                if any(c not in game.cards for c in people(game)):
                    raise Refused(409, "cards_missing")
                cards = {c: list(game.cards[c]) for c in people(game)}
                # The Pi's seats are dealt from what the people's cards left, by the app: nobody sees them.
                cards.update(pi_seat.deal_rest(game.mode, len(game.colors), game.cards, list(pi_seats(game)),
                                               random.Random(secrets.randbits(128))))
                cards = {c: cards[c] for c in game.colors}
                try:
                    check_cards(game.mode, [Seat(c, "", *cards[c]) for c in game.colors])
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
            body = {"cards": cards}
            mine = people(game)
            first = first_game(self.store, {c: game.names.get(c) for c in mine}, {c: game.devices[c] for c in mine})
            if first:
                body["first_game"] = first   # the hint on their own phone only (views.private)
            return self.path.commit(game, events.Start(body), device)
