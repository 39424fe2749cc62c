"""The end of a game: abandoned, played again, or its record taken away."""
from __future__ import annotations

from typing import TYPE_CHECKING

from companion import codes
from companion.model.seats import with_pi
from companion.errors import Refused
from companion.game.record import to_record
from companion.table import checks
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.table.commit import OnePath
    from companion.table.memory import Games


class Ending:
    """Abandon, rematch and the record of moves: built with the games, the one path and the lobby's `create`."""

    def __init__(self, games: Games, path: OnePath, create):
        self.games, self.path, self.create = games, path, create

    def abandon(self, gid: str, confirm: str, device: str) -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            if game.phase not in ("lobby", "playing", "board"):
                raise Refused(409, "not_playing")
            if codes.normal(confirm) != codes.normal(game.id):
                raise Refused(400, "confirm_game", game=game.id)
            return self.path.commit(game, events.Abandon({"actions": len(game.actions)}), device)

    def rematch(self, gid: str, rotate: bool, device: str) -> tuple[Game, str]:
        """Same seats, names and devices in a new lobby; every screen of the old game moves there."""
        old = self.games.get(gid)
        with old.lock:
            checks.host_only(old, device)
            if old.phase not in ("finished", "abandoned"):
                raise Refused(409, "not_finished")
            if old.next_game:
                raise Refused(409, "rematch_made", game=old.next_game)
            colors = list(old.colors)
            if rotate:
                colors = colors[1:] + colors[:1]   # the next player clockwise starts
            options = {"mode": old.mode, "players": colors, "removed_districts": sorted(old.removed),
                       "deal": "app" if old.deal == "board" else old.deal,   # a board scored: next, a game played
                       "layout": {"tokens": old.tokens} if old.layout == "hand" else "random",
                       "hints": old.hints_on, "pace": old.pace}
            seats = {c: [old.names[c], old.devices[c]] for c in colors if c in old.devices and old.names.get(c)}
            new = self.create(options, old.host, extra={"from": old.id, "seats": seats, "rotate": rotate})
            text = self.path.commit(old, events.Rematch({"game": new.id, "rotate": rotate}), device)
        return new, text

    def record(self, gid: str) -> dict:
        game = self.games.get(gid)
        with game.lock:
            if game.board is not None:
                raise Refused(409, "board_no_record")   # scored from the board: no bids were ever recorded
            if game.phase == "abandoned" and game.state is not None:
                # The actions so far: `companion score` replays them to the state the game stopped in.
                return with_pi(to_record(game.state.setup, game.actions), game)
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            return with_pi(to_record(game.state.setup, game.actions), game)
