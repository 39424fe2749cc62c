"""Which seats and hosts have no live phone, and for how long against their waits: what the views say of a gone
seat or host, and what the table's rescue, host claims and wakes go by (companion/table/presence.py)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Optional

from companion.model.seats import level_of

if TYPE_CHECKING:
    from companion.model.game import Game


class Absences:
    """How long a seat's or the host's device has been gone, against its wait. Built with `away_for(game id,
    device)`, the seconds a device has had no live socket in that game (the hub's, companion/live/hub.py: 0 while
    one is open), and the waits; `Absences()` is a table where nobody is ever gone (a game made outside a table)."""

    def __init__(self, away_for: Callable[[str, Optional[str]], float] = lambda gid, device: 0.0,
                 host_away: float = math.inf, seat_away: float = math.inf):
        self.away_for = away_for
        self.host_away = host_away   # seconds the host's device must be gone before a player may claim it
        self.seat_away = seat_away   # seconds the seat to act must be gone before a new phone may ask for it

    def recount(self, game: Game, live: set) -> bool:
        """Which seats have no live device among `live` (a seat with none is offline); True when that changed."""
        offline = tuple(c for c in game.colors if c in game.devices and game.devices[c] not in live
                        and not level_of(game.devices[c]))   # the Pi's seats need no phone
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
        return self.away_for(game.id, device) >= self.seat_limit(game, game.seat_of(device))

    def seat_waits(self, game: Game) -> dict:
        """Each offline seat of a game being played: whole seconds until a new phone may ask for it (0: now)."""
        if game.phase != "playing" or game.abandoned:
            return {}
        waits = {}
        for color in game.session.offline:
            device = game.devices.get(color)
            if device is not None and math.isfinite(self.seat_limit(game, color)):
                waits[color] = max(0, math.ceil(self.seat_limit(game, color) - self.away_for(game.id, device)))
        return waits

    def host_here(self, game: Game) -> bool:
        """The host's device came back (or never left) within the host-away wait."""
        return self.away_for(game.id, game.host) < self.host_away

    def host_away_now(self, game: Game) -> bool:
        return self.away_for(game.id, game.host) >= self.host_away

    def host_wait(self, game: Game) -> Optional[float]:
        """Seconds until a player may claim the role of a host whose phone is gone (0: now); None while it is here."""
        away = self.away_for(game.id, game.host)
        return None if away <= 0 else max(0.0, self.host_away - away)

    def turn_left(self, game: Game) -> Optional[float]:
        """Seconds until the offline seat to act reaches its wait; None when the seat to act is not offline."""
        st = game.state
        color = st.to_act_color if st is not None and not st.finished else None
        if color not in game.session.offline:
            return None
        return self.seat_limit(game, color) - self.away_for(game.id, game.devices.get(color))

    def left(self, game: Game) -> list[float]:
        """Seconds until each absence still short of its limit reaches it (a seat's own wait, the host's for the
        host's phone)."""
        away = [d for d in {game.host, *(game.devices.get(c) for c in game.session.offline)} if d is not None]
        left = []
        for d in away:
            a = self.away_for(game.id, d)
            limits = {self.seat_limit(game, game.seat_of(d))} | ({self.host_away} if d == game.host else set())
            left += [limit - a for limit in limits if 0 < a < limit]
        return left
