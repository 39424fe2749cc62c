"""Which seats and hosts have no live phone, and waking the pages when an absence reaches its limit."""
from __future__ import annotations

import math
import time
from typing import Optional

from companion import pi_seat
from companion.errors import Refused
from companion.live.wsloop import LiveSocket
from companion.table.game import Game


class Presence:
    """Absences counted from the sockets open now; the pages told when one reaches the limit."""

    def join_live(self, gid: str, device: Optional[str], address: str):
        """A device's live socket asks to follow a game (web/api.py's handshake): its place among the game's
        listeners, refused when there is no such game or the device (or address) has too many; the seat shows
        online from now on."""
        game = self.get(gid)   # any case; old codes as they were
        sub = self.hub.join(game.id, device, address)
        if sub is None:
            raise Refused(429, "too_many_sockets")
        self.presence(game.id)
        return sub

    def attach_live(self, sub, sock, device: Optional[str]) -> LiveSocket:
        """The handshake is answered: the socket gets this device's whole view, and every later change (the game's
        lock held, so no change slips between this first view and the next publish)."""
        game = self.find(sub.game)
        if game is None:   # gone between the handshake and now (abandoned and forgotten)
            self.hub.leave(sub)
            return self.refuse_live(sock, "no such game")
        with game.lock:
            return self.hub.attach(sub, sock, self.view_json(game.id, device))

    def leave_live(self, sub) -> None:
        self.hub.leave(sub)

    def refuse_live(self, sock, reason: str) -> LiveSocket:
        """A socket for no game: closed at once with `reason`, by the live loop."""
        live = LiveSocket(sock, self.hub.loop)
        live.close(1008, reason)
        return live

    def presence(self, gid: str) -> None:
        """A socket opened or closed: tell the table which seats have no live device."""
        game = self.games.get(gid)
        if game is None:
            return
        with game.lock:
            live = self.hub.live(game.id)
            if not self._recount(game, live):
                return
            self._changed(game)
            self.pi.after(game)   # someone came back to a game the Pi stopped thinking about: its turn goes on
        if game.host not in live or game.session.offline:
            self._wake_for_away(gid, self.host_away + 0.5)
        if game.session.offline:
            self._wake_for_away(gid, min(self.seat_away, self.host_away) + 0.5)

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
        self._wake_for_turn(game)
        return changed

    def seat_limit(self, game: Game, color: Optional[str]) -> float:
        """Seconds a seat's phone must be gone before a new phone may ask the table for it: shorter for the seat
        the game waits for (nobody else can move the game on once the host is gone too), else the host's wait."""
        st = game.state
        to_act = st.to_act_color if st is not None and not st.finished and not game.abandoned else None
        return min(self.seat_away, self.host_away) if color is not None and color == to_act else self.host_away

    def seat_gone(self, game: Game, device: Optional[str]) -> bool:
        """This seat's device has been gone past its seat's wait (a device holding no seat: the host's wait)."""
        return self.hub.away_for(game.id, device) >= self.seat_limit(game, game.seat_of(device))

    def seat_waits(self, game: Game) -> dict:
        """Each offline seat of a game being played: whole seconds until a new phone may ask for it (0: now)."""
        if game.phase != "playing" or game.abandoned:
            return {}
        waits = {}
        for color in game.session.offline:
            device = game.devices.get(color)
            if device is not None:
                waits[color] = max(0, math.ceil(self.seat_limit(game, color) - self.hub.away_for(game.id, device)))
        return waits

    def _wake_for_turn(self, game: Game) -> None:
        """The turn came to a seat already offline: its shorter wait ends sooner than any wake set so far."""
        st = game.state
        color = st.to_act_color if st is not None and not st.finished else None
        if color in game.session.offline:
            left = self.seat_limit(game, color) - self.hub.away_for(game.id, game.devices.get(color))
            if left > 0:
                self._wake_for_away(game.id, left + 0.5)

    def _tell_if_away(self, gid: str) -> None:
        game = self.games.get(gid)
        if game is not None and game.phase in ("lobby", "playing"):
            with game.lock:
                self._changed(game)
                # The next absence still short of the limit (a seat or the host gone later) gets its own wake.
                away = [d for d in {game.host, *(game.devices.get(c) for c in game.session.offline)} if d is not None]
                left = []
                for d in away:   # a seat's own wait, and the host's for the host's phone
                    a = self.hub.away_for(game.id, d)
                    limits = {self.seat_limit(game, game.seat_of(d))} | ({self.host_away} if d == game.host else set())
                    left += [limit - a for limit in limits if 0 < a < limit]
            if left:
                self._wake_for_away(gid, min(left) + 0.5)
