"""The live sockets' requests (`PresenceRequests`): a socket opened or closed recounts which seats and hosts have no
live phone (companion/model/absences.py), and the pages are woken when an absence reaches its limit (commit.py's
wakes)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from companion import views
from companion.errors import Refused
from companion.live.wsloop import LiveSocket
from companion.model.absences import Absences

if TYPE_CHECKING:   # the parts it is built with (by facade.py), for annotations only: not imported at run time
    from companion.live.hub import Hub
    from companion.pi_seat import PiThinker
    from companion.table.commit import OnePath
    from companion.table.memory import Games, Shelf


class PresenceRequests:
    """A device's live socket joins, is answered, leaves; a socket opened or closed tells the table which seats have
    no live device. Built with the games and their shelf, the hub, the one path, the absences and the Pi."""

    def __init__(self, games: Games, shelf: Shelf, hub: Hub, path: OnePath, absences: Absences, pi: PiThinker):
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
