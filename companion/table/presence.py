"""Which seats and hosts have no live phone, and waking the pages when an absence reaches its limit."""
from __future__ import annotations

import time
from typing import Optional

from companion import pi_seat
from companion.table.game import Game


class Presence:
    """Absences counted from the sockets open now; the pages told when one reaches the limit."""

    def presence(self, gid: str) -> None:
        """A socket opened or closed: tell the table which seats have no live device."""
        game = self.games.get(gid)
        if game is None:
            return
        with game.lock:
            live = self.hub.live(game.id)
            if not self._recount(game, live):
                return
            game.rev += 1
            self._tell(game)
            self.pi.after(game)   # someone came back to a game the Pi stopped thinking about: its turn goes on
        if game.host not in live or game.session.offline:
            self._wake_for_away(gid, self.host_away + 0.5)

    def _wake_for_away(self, gid: str, delay: float) -> None:
        """When an absence reaches the limit, the pages offer the host claim or the seat's move: a job on the
        one timer thread, at most one per game and second however often sockets churn (a later change never
        pushes an earlier wake back)."""
        due = time.monotonic() + delay
        self.timers.at(("away", gid, int(due)), due, lambda: self._tell_if_away(gid))

    def _recount(self, game: Game, live: Optional[set] = None) -> bool:
        """Which seats have no live device, from the sockets open now (a seat with none is offline, also right
        after a restart); True when that changed."""
        live = self.hub.live(game.id) if live is None else live
        offline = tuple(c for c in game.colors if c in game.devices and game.devices[c] not in live
                        and not pi_seat.level_of(game.devices[c]))   # the Pi's seats need no phone
        changed, game.session.offline = offline != game.session.offline, offline
        return changed

    def _tell_if_away(self, gid: str) -> None:
        game = self.games.get(gid)
        if game is not None and game.phase in ("lobby", "playing"):
            with game.lock:
                game.rev += 1
                self._tell(game)
                # The next absence still short of the limit (a seat or the host gone later) gets its own wake.
                away = [d for d in {game.host, *(game.devices.get(c) for c in game.session.offline)} if d is not None]
                gone_for = [self.hub.away_for(game.id, d) for d in away]
                left = [self.host_away - a for a in gone_for if 0 < a < self.host_away]
            if left:
                self._wake_for_away(gid, min(left) + 0.5)
