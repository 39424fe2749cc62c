"""The call path: a bid or a pass, the host passing for a gone phone, and undo."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion.model.seats import undo_count
from companion.errors import Refused
from companion.game.errors import RuleError
from companion.game.rules import apply, legal_actions
from companion.game.state import Action, Bid, Pass
from companion.table import checks
from companion.table.pi_seats import person_seat
from companion.model.game import Game
from companion.store import events

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.live.hub import Hub
    from companion.table.commit import OnePath
    from companion.table.memory import Games
    from companion.table.reviews import Reviewer


class Calls:
    """Every action is checked by the rules core before it reaches the log: built with the games, the one path,
    the reviewer (each person's decision judged) and the hub (a phone here)."""

    def __init__(self, games: Games, path: OnePath, reviews: Reviewer, hub: Hub):
        self.games, self.path, self.reviews, self.hub = games, path, reviews, hub

    def act(self, gid: str, device: str, move: dict, expect_seq: Optional[int]) -> str:
        game = self.games.get(gid)
        with game.lock:
            color = checks.seated(game, device)
            checks.fresh_seq(game, expect_seq)
            st = game.state
            if st is None:
                raise Refused(409, "not_started")
            action = Pass(color) if move.get("pass") else Bid(color, move["bid"], move["value"])
            return self.play(game, action, device)

    def play(self, game: Game, action: Action, device: str) -> str:
        """A bid or a pass by the seat to act (a phone's or the Pi's), checked by the rules, then committed."""
        st = game.state
        # Raises RuleError (nothing appended, nothing changed), also for an automatic pass: the rules' own.
        after = apply(st, action)
        text = self.path.commit(game, events.Action(action.to_json()), device,
                            call_ended=sum(after.built_count) > sum(st.built_count), after=after)
        self.reviews.decided(game, st, action)   # judged in the Pi's process, shown only after the end
        return text

    def pass_for(self, gid: str, device: str, expect_seq: Optional[int]) -> str:
        """The host passes for the player to act whose phone is gone; the log keeps who did it."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            checks.fresh_seq(game, expect_seq)
            st = game.state
            if st is None or game.phase != "playing":
                raise Refused(409, "not_started" if st is None else "not_playing")
            color = st.to_act_color
            person_seat(game, color)
            if game.devices.get(color) in self.hub.live(game.id):
                raise Refused(409, "player_here", player=color)
            if not legal_actions(st).can_pass:
                raise RuleError("start_cannot_pass", player=color)
            action = Pass(color)
            after = apply(st, action)
            body = dict(action.to_json(), by_host=True)
            return self.path.commit(game, events.Action(body), device,
                                call_ended=sum(after.built_count) > sum(st.built_count), after=after)

    def undo(self, gid: str, device: str, expect_seq: Optional[int] = None) -> str:
        game = self.games.get(gid)
        with game.lock:
            checks.not_abandoned(game)
            checks.host_only(game, device)
            checks.fresh_seq(game, expect_seq)   # a retried undo must not take back a second action
            if game.next_game:   # every screen moved on to the rematch: the old game stays as it ended
                raise Refused(409, "rematch_made", game=game.next_game)
            count = undo_count(game)   # back to the last person's action, the Pi's moves since with it
            if not count:
                raise Refused(409, "nothing_to_undo")
            body = {"action": len(game.actions)}
            if count > 1:
                body["count"] = count
            return self.path.commit(game, events.Undo(body), device)
