"""The board's requests: a person says the real board shows every step, the host asks what an undo takes back, and
the pace that makes the Pi wait for the board (issue 40). The steps themselves are the model's
(companion/model/board_steps.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import time

from companion import views
from companion.model.board_steps import waits
from companion.model.seats import undo_count
from companion.errors import Refused
from companion.table import checks
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.live.timers import Timers
    from companion.table.commit import OnePath
    from companion.table.memory import Games

PACES = ("board", "timer")


def pace_of(options: dict) -> str:
    pace = options.get("pace", "board")
    if pace not in PACES:
        raise Refused(400, "bad_type", field="pace", kind='"board" or "timer"')
    return pace


class BoardStepRequests:
    """Table's requests: a seated person says the board shows every step through `through`; the host asks what an
    undo would take back. Built with the games, the one path, the timers and the Pi's act (`pi_act`, pi_seats.py)."""

    def __init__(self, games: Games, path: OnePath, timers: Timers, pi_act):
        self.games, self.path, self.timers, self.pi_act = games, path, timers, pi_act

    def undo_preview(self, gid: str, device: str) -> dict:
        """The actions an undo takes back, oldest first, as the log's lines (the Pi's since the person's included):
        the pages say each as the table reads it, and what to take off the board (a bid's piece; a call's end undone)."""
        game = self.games.get(gid)
        with game.lock:
            checks.not_abandoned(game)
            checks.host_only(game, device)
            if game.next_game:
                raise Refused(409, "rematch_made", game=game.next_game)
            count = undo_count(game)
            lines = list(game.recent)[-count:] if count else []
            return {"seq": game.seq, "count": count, "actions": lines}

    def board_done(self, gid: str, device: str, through: int) -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.seated(game, device)
            if game.phase != "playing":
                raise Refused(409, "not_playing")
            through = min(through, game.seq)
            if through <= game.board_through or not any(s["seq"] <= through for s in game.board_steps):
                return views.view_json(game, device)   # nothing new confirmed: nothing logged
            text = self.path.commit(game, events.BoardDone({"through": through}), device)
            held, game.session.pi_held = game.session.pi_held, None
            if held and held[0] == len(game.actions) and not waits(game):
                seq, color, action = game.seq, held[1], held[2]
                self.timers.at(("pi", gid, seq), time.monotonic(),
                               lambda: self.pi_act(gid, seq, color, action))
            return text
