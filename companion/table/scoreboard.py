"""A game played on the board alone, scored by the Pi: its requests, through the table's one path (commit.py); its
events are the model's (companion/model/entries.py).

The board is typed in piece by piece (several phones at once, each its own colour; the host any colour),
each entry checked by game/board_entry.py before it is appended; the tally is the rules core's own
(scoring.explain on the State board_entry builds), written to the history with the event that makes it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import pi_seat
from companion.errors import Refused
from companion.game.board_entry import check_unique, hold, new_board, place, reveal, set_tokens, tally, to_state
from companion.game.errors import RuleError
from companion.game.setup import check_colors, check_mode, check_removed
from companion.game.state import Seat
from companion.model.entries import named_board
from companion.model.game import Game
from companion.names import same
from companion.table import checks
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.table.commit import OnePath
    from companion.table.memory import Games


def _check_names(names: dict, colors) -> dict:
    """Names given as the colours sat down (already cleaned): each for a colour at this table, no two alike."""
    for color in names:
        if color not in colors:
            raise Refused(404, "no_seat", color=color)
    given = list(names.values())
    if any(same(a, b) for i, a in enumerate(given) for b in given[i + 1:]):
        raise Refused(409, "name_taken")
    if any(pi_seat.passes_for_pi(n) for n in given):
        raise Refused(409, "name_pi")
    return {c: names[c] for c in colors if c in names}


class BoardRequests:
    """Table's requests for a board being scored: who may enter what, checked, then committed. Built with the games,
    the one path and the lobby's `create_from` (a board is made as a game is)."""

    def __init__(self, games: Games, path: OnePath, create_from):
        self.games, self.path, self.create_from = games, path, create_from

    def create_board(self, options: dict, device: str) -> Game:
        """A board to score: the mode, the colours in seating order, the districts out of play."""
        mode = check_mode(options["mode"])
        colors = check_colors(options["players"])
        removed = check_removed(len(colors), options.get("removed_districts") or [])
        new_board(mode, [Seat(c) for c in colors], removed)
        body = {"board": True, "mode": mode, "players": list(colors), "removed_districts": sorted(removed),
                "tokens": {}, "deal": "board", "layout": "board"}
        names = options.get("names") or {}
        if names:
            body["names"] = _check_names(names, colors)
        return self.create_from(body, device)

    def _board_game(self, gid: str):
        game = self.games.get(gid)
        if game.board is None:
            raise Refused(409, "not_a_board")
        return game

    def _may_enter(self, game: Game, device: str, color: Optional[str]) -> None:
        """The host enters any colour; a seated phone its own colour only; nothing once the tally is made."""
        checks.not_abandoned(game)
        if game.phase != "board":
            raise Refused(409, "board_scored")
        if game.can_host(device):
            return
        mine = game.seat_of(device)
        if mine is None:
            raise Refused(403, "not_seated")
        if color is not None and color != mine:
            raise Refused(403, "board_own_colour", color=mine)

    def enter_building(self, gid: str, nb: str, color: Optional[str], height: Optional[str], device: str) -> str:
        game = self._board_game(gid)
        with game.lock:
            owner = (game.board.buildings.get(nb) or (None, None))[0]
            self._may_enter(game, device, color if color is not None else owner)
            if owner is not None and color is not None and owner != color and not game.can_host(device):
                raise Refused(409, "board_taken", nb=nb, color=owner, player=owner)
            place(game.board, nb, color, height)   # RuleError: nothing appended, nothing changed
            body = {"neighborhood": nb, "color": color}
            if height is not None and game.mode == "expert":
                body["height"] = height
            return self.path.commit(game, events.Building(body), device)

    def enter_tokens(self, gid: str, color: str, tokens: list, device: str) -> str:
        game = self._board_game(gid)
        with game.lock:
            self._may_enter(game, device, color)
            set_tokens(game.board, color, tokens)
            return self.path.commit(game, events.Tokens({"color": color, "tokens": list(tokens)}), device)

    def enter_holder(self, gid: str, card: str, color: Optional[str], device: str) -> str:
        game = self._board_game(gid)
        with game.lock:
            self._may_enter(game, device, None)   # public: any seated phone may say who holds a card
            hold(game.board, card, color)
            return self.path.commit(game, events.Holder({"card": card, "color": color}), device)

    def enter_secret(self, gid: str, color: str, area: str, hood: Optional[str], device: str) -> str:
        game = self._board_game(gid)
        with game.lock:
            self._may_enter(game, device, color)
            reveal(game.board, color, area, hood)
            # A card entered for two colours is refused now, to this device only, naming the entry to check. It
            # tells this phone what another colour entered: the game is over on the board, and its cards are laid
            # face up to be scored (the tally shows them all a moment later).
            check_unique(game.board, color, area, hood)
            return self.path.commit(game, events.Secret({"color": color, "area": area, "neighborhood": hood}), device)

    def name_colour(self, gid: str, color: str, name: str, device: str) -> str:
        """A name for a colour no phone holds: the host enters for that player, the history names them."""
        game = self._board_game(gid)
        with game.lock:
            self._may_enter(game, device, color)
            checks.seat_in_game(game, color)
            if color in game.devices:
                raise Refused(409, "seat_taken", color=color, name=game.names.get(color) or "")
            if any(same(other, name) for c, other in game.names.items() if c != color):
                raise Refused(409, "name_taken")
            if pi_seat.passes_for_pi(name):
                raise Refused(409, "name_pi")
            return self.path.commit(game, events.Name({"color": color, "name": name}), device)

    def tally_board(self, gid: str, device: str) -> str:
        """The host asks for the tally: the whole board checked, then scored by the rules core and saved."""
        game = self._board_game(gid)
        with game.lock:
            checks.not_abandoned(game)
            checks.host_only(game, device)
            if game.phase != "board":
                raise Refused(409, "board_scored")
            try:
                tally(game.board)
            except RuleError as e:
                if e.code == "duplicate_card":
                    # Two seats entered one card: said without naming the card, which is someone's secret.
                    raise Refused(409, "cards_clash") from None
                raise
            unnamed = [c for c in game.colors if not game.names.get(c)]
            if unnamed:
                # Every seat of a played game has a name; so does a board's, or the standings would count "blue".
                raise Refused(409, "board_unnamed", color=unnamed[0])
            after = to_state(named_board(game))
            return self.path.commit(game, events.Tally({}), device, after=after)
