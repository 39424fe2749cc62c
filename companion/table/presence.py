"""Which seats and hosts have no live phone (`Absences`, below the one path), and the live sockets' requests
(`PresenceRequests`): a socket opened or closed recounts a game, and the pages are woken when an absence reaches
its limit (commit.py's wakes)."""
from __future__ import annotations

import math
from typing import Optional

from companion import pi_seat, views
from companion.errors import Refused
from companion.live.wsloop import LiveSocket
from companion.table.game import Game


class Absences:
    """How long a seat's or the host's device has been gone, against its wait: built with the hub and the waits."""

    def __init__(self, hub, host_away: float, seat_away: float):
        self.hub = hub
        self.host_away = host_away   # seconds the host's device must be gone before a player may claim it
        self.seat_away = seat_away   # seconds the seat to act must be gone before a new phone may ask for it

    def recount(self, game: Game, live: set) -> bool:
        """Which seats have no live device among `live` (a seat with none is offline); True when that changed."""
        offline = tuple(c for c in game.colors if c in game.devices and game.devices[c] not in live
                        and not pi_seat.level_of(game.devices[c]))   # the Pi's seats need no phone
        changed, game.session.offline = offline != game.session.offline, offline
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

    def host_here(self, game: Game) -> bool:
        """The host's device came back (or never left) within the host-away wait."""
        return self.hub.away_for(game.id, game.host) < self.host_away

    def host_away_now(self, game: Game) -> bool:
        return self.hub.away_for(game.id, game.host) >= self.host_away

    def host_wait(self, game: Game) -> Optional[float]:
        """Seconds until a player may claim the role of a host whose phone is gone (0: now); None while it is here."""
        away = self.hub.away_for(game.id, game.host)
        return None if away <= 0 else max(0.0, self.host_away - away)

    def turn_left(self, game: Game) -> Optional[float]:
        """Seconds until the offline seat to act reaches its wait; None when the seat to act is not offline."""
        st = game.state
        color = st.to_act_color if st is not None and not st.finished else None
        if color not in game.session.offline:
            return None
        return self.seat_limit(game, color) - self.hub.away_for(game.id, game.devices.get(color))

    def left(self, game: Game) -> list[float]:
        """Seconds until each absence still short of its limit reaches it (a seat's own wait, the host's for the
        host's phone)."""
        away = [d for d in {game.host, *(game.devices.get(c) for c in game.session.offline)} if d is not None]
        left = []
        for d in away:
            a = self.hub.away_for(game.id, d)
            limits = {self.seat_limit(game, game.seat_of(d))} | ({self.host_away} if d == game.host else set())
            left += [limit - a for limit in limits if 0 < a < limit]
        return left


class PresenceRequests:
    """A device's live socket joins, is answered, leaves; a socket opened or closed tells the table which seats have
    no live device. Built with the games and their shelf, the hub, the one path, the absences and the Pi."""

    def __init__(self, games, shelf, hub, path, absences: Absences, pi):
        self.games, self.shelf, self.hub, self.path, self.absences, self.pi = games, shelf, hub, path, absences, pi

    def join_live(self, gid: str, device: Optional[str], address: str):
        """A device's live socket asks to follow a game (web/api.py's handshake): its place among the game's
        listeners, refused when there is no such game or the device (or address) has too many; the seat shows
        online from now on."""
        game = self.games.get(gid)   # any case; old codes as they were
        sub = self.hub.join(game.id, device, address)
        if sub is None:
            raise Refused(429, "too_many_sockets")
        self.presence(game.id)
        return sub

    def attach_live(self, sub, sock, device: Optional[str]) -> LiveSocket:
        """The handshake is answered: the socket gets this device's whole view, and every later change (the game's
        lock held, so no change slips between this first view and the next publish)."""
        game = self.games.find(sub.game)
        if game is None:   # gone between the handshake and now (abandoned and forgotten)
            self.hub.leave(sub)
            return self.refuse_live(sock, "no such game")
        with game.lock:
            return self.hub.attach(sub, sock, views.view_json(self.games.get(game.id), device))

    def leave_live(self, sub) -> None:
        self.hub.leave(sub)

    def refuse_live(self, sock, reason: str) -> LiveSocket:
        """A socket for no game: closed at once with `reason`, by the live loop."""
        live = LiveSocket(sock, self.hub.loop)
        live.close(1008, reason)
        return live

    def presence(self, gid: str) -> None:
        """A socket opened or closed: tell the table which seats have no live device."""
        game = self.shelf.games.get(gid)
        if game is None:
            return
        host_away, seat_away = self.absences.host_away, self.absences.seat_away
        with game.lock:
            live = self.hub.live(game.id)
            if not self.path.recount(game, live):
                return
            self.path.changed(game)
            self.pi.after(game)   # someone came back to a game the Pi stopped thinking about: its turn goes on
        if game.host not in live or game.session.offline:
            self.path.wake_for_away(gid, host_away + 0.5)
        if game.session.offline:
            self.path.wake_for_away(gid, min(seat_away, host_away) + 0.5)
