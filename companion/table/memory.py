"""Which games the table holds in memory: replayed from the log at start, an ended one read when opened."""
from __future__ import annotations

import time
from functools import partial
from typing import Optional

from companion import codes, pi_seat
from companion.codes import Code
from companion.game.state import State
from companion.limits import ID_LENGTH
from companion.store import history
from companion.store.notice import storage_notice
from companion.table.game import Game, Session


class Memory:
    """Finding games: the games not ended stay in memory, ended ones are read when opened (a few kept)."""

    def load(self) -> None:
        """Replay the games not ended, in the order the log was written, so the table shows what it showed:
        the game the host chose, or else the game that moved last (by the log's count, never the clock).
        An ended game is a summary row, read when someone opens it; one that ended before summaries
        existed is replayed once, here, and its summary written."""
        unsummarised = {gid for gid, _ in self.store.open_games()}
        last = self.store.last_moved()
        wanted = unsummarised | ({last} if last else set())   # the game on the table display may have ended: it is still shown
        for gid, seq, kind, body, device in self.store.events_of(wanted):
            if gid in self.broken:
                continue
            game = self.games.get(gid)
            if game is None:
                game = self.games[gid] = self._new_game(gid)
            try:
                if seq != game.seq + 1:
                    raise ValueError(f"event {seq} follows event {game.seq}")
                game.mutate(kind, body, device)
            except Exception as e:  # any corruption: hand-edited file, older format, bug
                # One unreadable game must not keep the others (and the table) from starting.
                self.broken[gid] = f"event {game.seq + 1}: {e}"
                del self.games[gid]
                if self.current == gid:
                    self.current = None
                continue
            self._follow(game, kind, body)
        backfill = []
        for gid, game in self.games.items():
            if self._recount(game):   # every seat offline until its phone's socket opens
                self._wake_for_away(gid, self.host_away + 0.5)
        for gid, game in list(self.games.items()):
            if game.phase not in history.ENDED:
                continue
            if gid in unsummarised:
                backfill.append(history.record_play(self._summary(game, game.state), game.seq))
            if gid != self.current:
                del self.games[gid]
        if backfill:   # one transaction, one fsync
            self.store.write(lambda conn, at: [write(conn, at) for write in backfill])
        if self.current:
            self._show_leds(self.games[self.current])
        changed = self.store.changed_at(set(self.games))
        for game in list(self.games.values()):
            # A Pi seat whose turn it was acts again after a restart; a game left alone long is thought about
            # only when someone comes back to it (pi_seat.STALE).
            ago = max(0.0, time.time() - changed.get(game.id, time.time()))
            with game.lock:
                self.pi.after(game, touched=time.monotonic() - ago)

    def _replay(self, gid: str) -> Optional[Game]:
        game = self._new_game(gid)
        try:
            for seq, kind, body, device in self.store.events(gid):
                game.mutate(kind, body, device)
        except Exception as e:  # any corruption: hand-edited file, older format, bug
            # One unreadable game must not keep the others (and the table) from starting.
            self.broken[gid] = f"event {game.seq + 1}: {e}"
            return None
        self._recount(game)
        return game if game.seq else None

    def find(self, gid: str) -> Optional[Game]:
        """A game in memory, or an ended one read from its log (kept among the few last opened)."""
        with self._lock:
            game = self.games.get(gid)
            if game is None:
                game = self.opened.get(gid)
                if game is not None:
                    self.opened.move_to_end(gid)
            if game is not None or gid in self.broken or len(gid) > ID_LENGTH:
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

    def _keep(self, game: Game, before: Optional[str]) -> None:
        """After a change: this game stays in memory; an ended game the table no longer shows leaves it."""
        with self._lock:
            self.games[game.id] = game
            self.opened.pop(game.id, None)
            old = self.games.get(before) if before and before != self.current else None
            if old is not None and old.phase in history.ENDED:
                del self.games[before]
                self.opened[before] = old
                self._trim()

    def _follow(self, game: Game, kind: str, body: dict) -> None:
        """Which game the table display and the LEDs show after this event. A new game takes the table
        when it was allowed to (`shown`), an abandoned one lets go of it, and any other move takes it only
        from a game no longer in progress: never from a game being played, whatever changed last."""
        if kind == "create" and "shown" in body:
            if body["shown"]:
                self.current = game.id
            return
        if kind == "abandon":
            if self.current == game.id:
                self.current = None
            return
        if kind == "rematch" or self.current == game.id:
            return
        shown = self.games.get(self.current) if self.current else None
        if shown is None or not shown.in_progress:
            self.current = game.id

    def _new_game(self, gid: str) -> Game:
        """A game with the table's hooks: its screens, how long a device has been gone, the storage notice."""
        game = Game(gid)
        game.session = Session(displays=self.displays, kiosks=self.kiosks,
                               host_gone=lambda: self.host_away_now(game), host_wait=lambda: self.host_wait(game),
                               away=lambda device: self.seat_gone(game, device),
                               seat_waits=lambda: self.seat_waits(game),
                               storage=self.storage_notice)
        return game

    def storage_notice(self) -> Optional[dict]:
        """What every screen says about the storage (companion/store/notice.py), or None."""
        return storage_notice(self.store, lambda gid: getattr(self.games.get(gid), "seq", None))

    def lost_game(self) -> Optional[Game]:
        """The game whose acknowledged action the log lost (the storage notice names its player), if in memory."""
        lost = getattr(self.store, "lost", None) or {}
        return self.games.get(lost.get("game", ""))

    def _storage_changed(self) -> None:
        """The storage notice came or went: every game in memory sends its views again (each under its own lock,
        on the timers' thread: a commit holding one game's lock never waits for another's)."""
        for gid in list(self.games):
            self.timers.soon(("storage", gid), partial(self._retell, gid))

    def _tell_at_expiry(self, game: Game, code: Code) -> None:
        """A code on a screen (a seat's move, an ask, a host claim) leaves it when it expires, not at the next change."""
        due = code.made + codes.LIFETIME + 0.05
        self.timers.at(("expired", game.id, code.value), due, partial(self._retell, game.id))

    def _retell(self, gid: str) -> None:
        game = self.games.get(gid)
        if game is not None:
            with game.lock:
                self._changed(game)

    def _summary(self, game: Game, state: Optional[State], status: Optional[str] = None) -> dict:
        status = status or ("finished" if state is not None and state.finished else game.phase)
        summary = history.summarize(game.id, state, status, game.names, game.mode, game.colors)
        for seat in summary["players"]:   # the Pi's seats by what they are (a person may have any name)
            level = pi_seat.level_of(game.devices.get(seat["color"]))
            if level:
                seat["pi"] = level
        if game.board is not None:
            summary["from_board"] = True   # scored from the board: no bids, no record of moves
            for seat in summary["players"]:
                seat["start"] = False          # nobody knows who opened the first call
        for seat in summary["players"]:
            if game.hints.get(seat["color"]):
                seat["hints"] = game.hints[seat["color"]]   # "What would the Pi do?" asked (table/reviews.py)
        return summary
