"""A finished game watched again (issue 41): its replay for any device, and the step the table screen shows.

The step the table shows is the host's choice, like the skipped reveal: not logged (nothing in the game changes, so
neither history nor the record sees it), gone with a restart, and told to every screen in the view (`replay_step`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import views
from companion.model.seats import with_pi
from companion.errors import Refused
from companion.game.record import to_record
from companion.game.replay import steps
from companion.table import checks

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.table.commit import OnePath
    from companion.table.memory import Games


class Replays:
    """GET /api/games/<id>/replay and the host's POST of the step the table screen shows: built with the games and
    the one path."""

    def __init__(self, games: Games, path: OnePath):
        self.games, self.path = games, path

    def replay(self, gid: str) -> dict:
        """Every step of a finished game with every seat's cards: refused to every device until the game is over."""
        game = self.games.get(gid)
        with game.lock:
            if game.board is not None:
                raise Refused(409, "board_no_record")   # scored from the board: no bids were ever recorded
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            cached, seq = game.session.replay, game.seq
            if cached is not None and cached[0] == seq:
                return cached[1]
            doc = to_record(game.state.setup, game.actions)
            pi = with_pi({}, game).get("pi")
        made = steps(doc)   # outside the game's lock: a slow Pi holds up none of the game's other requests
        made["id"] = game.id
        if pi:
            made["pi"] = pi
        with game.lock:
            if game.seq == seq:
                game.session.replay = (seq, made)
        return made

    def show_replay(self, gid: str, step: Optional[int], device: str) -> str:
        """The host's phone drives the table screen: the board after `step` actions (0: before the first), or
        None: the table shows the end of the game again."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            if game.phase != "finished" or game.board is not None:
                raise Refused(409, "not_finished")
            if step is not None and not 0 <= step <= len(game.actions):
                raise Refused(400, "bad_step", last=len(game.actions))
            if game.session.replay_step != step:
                game.session.replay_step = step
                self.path.changed(game)
            return views.view_json(game, device)
