"""Which games the table holds in memory (`Shelf`), and finding them (`Games`): replayed from the log at start, an
ended one read when opened. The shelf sits below the one path (commit.py), which keeps and follows games on it;
`Games` sits above it, replaying through it."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Optional

from companion import codes
from companion.errors import Refused
from companion.game.state import State
from companion.limits import ID_LENGTH
from companion.store import events, history
from companion.model.game import Game
from companion.model.session import Session
from companion.model.seats import level_of

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.model.absences import Absences
    from companion.pi_seat import PiThinker
    from companion.store.db import Store
    from companion.table.commit import OnePath


class Shelf:
    """The games in memory: those not ended, the current one, a few ended ones opened; which one the table shows."""

    OPENED = 8   # ended games kept in memory after someone opened them (a history page, an old phone link)

    def __init__(self):
        self.games: dict[str, Game] = {}   # games not ended, and the current one
        self.opened: OrderedDict[str, Game] = OrderedDict()
        self.broken: dict[str, str] = {}   # game id -> why its log could not be replayed
        self.lock = threading.Lock()       # the shelf's dicts and `current`, never held while a game's lock is taken
        self.current: Optional[str] = None

    def shown(self) -> Optional[Game]:
        """The game the table screen shows (the host chose it), or None."""
        return self.games.get(self.current) if self.current else None

    def seq_of(self, gid: str) -> Optional[int]:
        return getattr(self.games.get(gid), "seq", None)

    def trim(self) -> None:
        while len(self.opened) > self.OPENED:
            self.opened.popitem(last=False)

    def keep(self, game: Game, before: Optional[str]) -> None:
        """After a change: this game stays in memory; an ended game the table no longer shows leaves it."""
        with self.lock:
            self.games[game.id] = game
            self.opened.pop(game.id, None)
            old = self.games.get(before) if before and before != self.current else None
            if old is not None and old.phase in history.ENDED:
                del self.games[before]
                self.opened[before] = old
                self.trim()

    def follow(self, game: Game, event: events.Event) -> None:
        """Which game the table display and the LEDs show after this event. A new game takes the table
        when it was allowed to (`shown`), an abandoned one lets go of it, and any other move takes it only
        from a game no longer in progress: never from a game being played, whatever changed last."""
        if isinstance(event, events.Create) and event.shown is not None:
            if event.shown:
                self.current = game.id
            return
        if isinstance(event, events.Abandon):
            if self.current == game.id:
                self.current = None
            return
        if isinstance(event, events.Rematch) or self.current == game.id:
            return
        shown = self.games.get(self.current) if self.current else None
        if shown is None or not shown.in_progress:
            self.current = game.id


class Games:
    """Finding games: the games not ended stay in memory, ended ones are read when opened (a few kept). Built with
    the shelf, the store, the one path (a replayed game's seats counted offline, its wakes set), the absences and
    the screens a new game's session reads, and the Pi (a game it plays in thinks again after a restart)."""

    def __init__(self, shelf: Shelf, store: Store, path: OnePath, absences: Absences, displays: set, kiosks: set,
                 pi: PiThinker):
        self.shelf, self.store, self.path, self.absences, self.pi = shelf, store, path, absences, pi
        self.displays, self.kiosks = displays, kiosks

    def get(self, gid: str) -> Game:
        """A game by its code, as typed: any case (old mixed-case codes still open as they were)."""
        game = self.find(gid) or self.find(codes.normal(gid))
        if game is None:
            raise Refused(404, "no_game")
        return game

    def load(self) -> None:
        """Replay the games not ended, in the order the log was written, so the table shows what it showed:
        the game the host chose, or else the game that moved last (by the log's count, never the clock).
        An ended game is a summary row, read when someone opens it; one that ended before summaries
        existed is replayed once, here, and its summary written."""
        shelf = self.shelf
        unsummarised = {gid for gid, _ in self.store.open_games()}
        last = self.store.last_moved()
        wanted = unsummarised | ({last} if last else set())   # the game on the table display may have ended: it is still shown
        for gid, seq, kind, body, device in self.store.events_of(wanted):
            if gid in shelf.broken:
                continue
            game = shelf.games.get(gid)
            if game is None:
                game = shelf.games[gid] = self.new_game(gid)
            try:
                if seq != game.seq + 1:
                    raise ValueError(f"event {seq} follows event {game.seq}")
                event = events.of(kind, body)
                game.mutate(event, device)
            except Exception as e:  # any corruption: hand-edited file, older format, bug
                # One unreadable game must not keep the others (and the table) from starting.
                shelf.broken[gid] = f"event {game.seq + 1}: {e}"
                del shelf.games[gid]
                if shelf.current == gid:
                    shelf.current = None
                continue
            shelf.follow(game, event)
        self._settle(unsummarised)

    def _settle(self, unsummarised: set) -> None:
        """After the replay: every seat offline until its phone's socket opens, the ended games' summaries written
        and the games off the shelf, the LEDs set, and the Pi's turns taken up again."""
        shelf, backfill = self.shelf, []
        for gid, game in shelf.games.items():
            if self.path.recount(game):   # every seat offline until its phone's socket opens
                self.path.wake_for_away(gid, self.absences.host_away + 0.5)
        for gid, game in list(shelf.games.items()):
            if game.phase not in history.ENDED:
                continue
            if gid in unsummarised:
                backfill.append(history.record_play(summary(game, game.state), game.seq))
            if gid != shelf.current:
                del shelf.games[gid]
        if backfill:   # one transaction, one fsync
            self.store.write(lambda conn, at: [write(conn, at) for write in backfill])
        if shelf.current:
            self.path.show_leds(shelf.games[shelf.current])
        changed = self.store.changed_at(set(shelf.games))
        for game in list(shelf.games.values()):
            # A Pi seat whose turn it was acts again after a restart; a game left alone long is thought about
            # only when someone comes back to it (pi_seat.STALE).
            ago = max(0.0, time.time() - changed.get(game.id, time.time()))
            with game.lock:
                self.pi.after(game, touched=time.monotonic() - ago)

    def _replay(self, gid: str) -> Optional[Game]:
        game = self.new_game(gid)
        try:
            for seq, kind, body, device in self.store.events(gid):
                game.mutate(events.of(kind, body), device)
        except Exception as e:  # any corruption: hand-edited file, older format, bug
            # One unreadable game must not keep the others (and the table) from starting.
            self.shelf.broken[gid] = f"event {game.seq + 1}: {e}"
            return None
        self.path.recount(game)
        return game if game.seq else None

    def find(self, gid: str) -> Optional[Game]:
        """A game in memory, or an ended one read from its log (kept among the few last opened)."""
        shelf = self.shelf
        with shelf.lock:
            game = shelf.games.get(gid)
            if game is None:
                game = shelf.opened.get(gid)
                if game is not None:
                    shelf.opened.move_to_end(gid)
            if game is not None or gid in shelf.broken or len(gid) > ID_LENGTH:
                return game
        game = self._replay(gid)   # outside the table's lock: a slow read holds up no other game
        if game is None:
            return None
        with shelf.lock:
            known = shelf.games.get(gid) or shelf.opened.get(gid)
            if known is not None:
                return known
            if game.phase in history.ENDED:
                shelf.opened[gid] = game
                shelf.trim()
            else:
                shelf.games[gid] = game
        return game

    def new_game(self, gid: str) -> Game:
        """A game with the table's hooks: its screens, how long a device has been gone, the storage notice."""
        game = Game(gid)
        game.session = Session(displays=self.displays, kiosks=self.kiosks, absences=self.absences,
                               storage=self.path.notice)
        return game

    def lost_game(self) -> Optional[Game]:
        """The game whose acknowledged action the log lost (the storage notice names its player), if in memory."""
        lost = getattr(self.store, "lost", None) or {}
        return self.shelf.games.get(lost.get("game", ""))


def summary(game: Game, state: Optional[State], status: Optional[str] = None) -> dict:
    """The history's row for a game: its seats, the Pi's by level, a board's tally, the hints asked."""
    status = status or ("finished" if state is not None and state.finished else game.phase)
    made = history.summarize(game.id, state, status, game.names, game.mode, game.colors,
                             ex=None if state is None else game.explain(state))
    for seat in made["players"]:   # the Pi's seats by what they are (a person may have any name)
        level = level_of(game.devices.get(seat["color"]))
        if level:
            seat["pi"] = level
    if game.board is not None:
        made["from_board"] = True   # scored from the board: no bids, no record of moves
        for seat in made["players"]:
            seat["start"] = False          # nobody knows who opened the first call
    for seat in made["players"]:
        if game.hints.get(seat["color"]):
            seat["hints"] = game.hints[seat["color"]]   # "What would the Pi do?" asked (table/reviews.py)
    return made
