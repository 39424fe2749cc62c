"""The Pi's review of every person's decisions, worked out while the game goes, and its hints for learners.

The review runs in the Pi's own process at its low priority (pi_seat.PiThinker.background), one decision at a time
from the moment it is taken, from what that seat knew then (players.seen.hide); it is kept here, in memory only, and
handed out by `review` once the game is over: never in a view, a socket message or the log before. A decision whose
judgement is missing (a restart, an undo) is judged when the review is asked for, the same way, with the same seed.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Optional

from companion import think, views
from companion.errors import Refused
from companion.game.awards import awards as game_awards
from companion.game.record import to_record
from companion.game.rules import apply, new_game
from companion.game.state import Action, State
from companion.players.review import advice, is_decision, judge, seed_of, summary
from companion.players.seen import hide
from companion.model.game import Game
from companion.table import checks
from companion.store import events
from companion.model.seats import level_of, people

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.pi_seat import PiThinker
    from companion.table.commit import OnePath
    from companion.table.memory import Games

log = logging.getLogger(__name__)
KEPT = 16   # games whose judgements are kept in memory (the ones being played, the last ones reviewed)


def awards(game: Game) -> list:
    """The end show's awards (issue 41, item 5), from the game's record as the replay counts them."""
    return game_awards(to_record(game.state.setup, game.actions))


class Reviewer:
    """Judges each person's decision in the background as it is taken; the whole review on demand at the end."""

    def __init__(self, thinker: PiThinker):
        self.thinker = thinker
        self.jobs: "queue.SimpleQueue" = queue.SimpleQueue()
        self.judged: "OrderedDict[str, dict]" = OrderedDict()   # gid -> index -> (action, best, cost)
        self.queued: set = set()                                 # (gid, index, action) handed to the thread
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None

    def decided(self, game: Game, before: State, action: Action) -> None:
        """A person's bid or pass was committed (game lock held): judged later, from what that seat knew."""
        if level_of(game.devices.get(action.player)) is not None or not is_decision(before):
            return
        self._queue(game.id, len(game.actions) - 1, hide(before, action.player), action)

    def _queue(self, gid: str, index: int, seen: State, action: Action) -> None:
        with self._lock:
            if (gid, index, action) in self.queued:
                return
            self.queued.add((gid, index, action))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="companion-review", daemon=True)
                self._thread.start()
        self.jobs.put((gid, index, seen, action))

    def _run(self) -> None:
        think.lower()   # the review's thread waits below the server's requests, as the Pi's own does
        while True:
            gid, index, seen, action = self.jobs.get()
            try:
                best, cost = self.thinker.background(judge, seen, action.player, action, seed_of(gid, index))
                with self._lock:
                    self.judged.setdefault(gid, {})[index] = (action, best, cost)
                    self.judged.move_to_end(gid)
                    while len(self.judged) > KEPT:
                        self.judged.popitem(last=False)
            except Exception:
                log.exception("the Pi could not review decision %s of game %s", index, gid)
            finally:
                with self._lock:
                    self.queued.discard((gid, index, action))

    def review(self, gid: str, setup, actions: list, people: list) -> tuple[Optional[dict], int, int]:
        """(every person's decisions summed up, or None while some are still being judged; judged, of how many).
        A decision judged before an undo, or never (a restart), is queued now: the answer never waits for it."""
        with self._lock:
            known = dict(self.judged.get(gid, {}))
        state, rows, missing = new_game(setup), [], []
        for index, action in enumerate(actions):
            if action.player in people and is_decision(state):
                found = known.get(index)
                if found is None or found[0] != action:
                    missing.append((index, hide(state, action.player), action))
                else:
                    rows.append((index, action.player, action, found[1], found[2], len(state.built) + 1, state.call))
            state = apply(state, action)
        for index, seen, action in missing:
            self._queue(gid, index, seen, action)
        total = len(rows) + len(missing)
        return (None if missing else summary(rows, people)), len(rows), total


class ReviewRequests:
    """Table's requests for the review and the hints: built with the games, the one path, the reviewer and the Pi."""

    def __init__(self, games: Games, path: OnePath, reviews: Reviewer, pi: PiThinker):
        self.games, self.path, self.reviews, self.pi = games, path, reviews, pi

    def review(self, gid: str) -> dict:
        game = self.games.get(gid)
        with game.lock:
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            setup, actions, persons = game.state.setup, list(game.actions), people(game)
            found = awards(game)
        seats, done, total = self.reviews.review(game.id, setup, actions, persons)
        if seats is None:   # still being worked out (a game played faster than the Pi judges, a restart)
            return {"pending": True, "done": done, "of": total}
        return {"seats": seats, "awards": found}

    def show_review(self, gid: str, on: bool, device: Optional[str]) -> str:
        """The host shows the Pi's review on the table screen, or hides it: not logged, as the show's skip."""
        game = self.games.get(gid)
        with game.lock:
            checks.host_only(game, device)
            if game.phase != "finished":
                raise Refused(409, "not_finished")
            if game.session.show_review != on:
                game.session.show_review = on
                self.path.changed(game)
            return views.view_json(game, device)

    def hint(self, gid: str, device: Optional[str]) -> tuple[Action, float, Optional[Action], State, str]:
        """What the Pi would do in this seat's place, from this seat's view alone; the ask is logged (counted)."""
        game = self.games.get(gid)
        with game.lock:
            color = self._hint_seat(game, device)
            seen, seq, index = views.seat_state(game, color), game.seq, len(game.actions)
        found = self.pi.background(advice, seen, color, f"{game.id}/hint/{index}")
        with game.lock:
            if game.seq != seq and self._hint_seat(game, device) != color:
                raise Refused(409, "stale")
            text = self.path.commit(game, events.Hint({"color": color}), device)
        return found + (seen, text)

    def _hint_seat(self, game: Game, device: Optional[str]) -> str:
        if not game.hints_on:
            raise Refused(409, "hints_off")
        if game.phase != "playing":
            raise Refused(409, "not_playing")
        color = game.seat_of(device)
        if color is None:
            raise Refused(403, "hint_watcher")
        if game.state.to_act_color != color:
            raise Refused(409, "hint_not_your_turn", player=game.state.to_act_color)
        return color
