"""How many games one device, and one address, may hold open: lobbies waiting to start, and games being played.

Strangers' lobbies must not fill the Pi's memory, nor their games (each Pi seat thinks in them) the Pi's thinking
queue ahead of the table's own. A device that drops its cookie is still counted by its address, at twice the limit.
A part of the table handed only what it counts (the games, by reference) and its limits: it reaches into nothing
else, and the web layer asks the table, never the part.
"""
from __future__ import annotations

import threading
from typing import Callable, Mapping, TypeVar

from companion.errors import Refused

T = TypeVar("T")
REFUSAL = {"lobby": "games_full", "playing": "started_full"}


class Caps:
    """Per device and per address: games in one phase ("lobby" or "playing") a device hosts, and games made to
    enter that phase from an address."""

    def __init__(self, games: Mapping, limits: Mapping[str, int]):
        self.games = games                 # the table's games by id (read only)
        self.limits = dict(limits)         # phase -> games per device (twice that per address)
        self._by_address: dict[str, dict[str, list[str]]] = {phase: {} for phase in REFUSAL}
        self._lock = threading.Lock()

    def within(self, phase: str, device: str, address: str, make: Callable[[], tuple[str, T]]) -> T:
        """`make()` -> (game id, result) when this device and address are under the cap for `phase`, else refused
        with the limit in the sentence; the game counts for the address from then on while it stays in `phase`."""
        limit = self.limits[phase]
        if self._hosted(device, (phase,)) >= limit:
            raise Refused(429, REFUSAL[phase], limit=limit)
        by_address = self._by_address[phase]
        with self._lock:
            mine = by_address[address] = self._still(phase, by_address.get(address, []))
            if len(mine) >= 2 * limit:
                raise Refused(429, REFUSAL[phase], limit=2 * limit)
            for other in [a for a, gids in by_address.items() if not self._still(phase, gids)]:
                del by_address[other]
            gid, result = make()
            by_address.setdefault(address, []).append(gid)
            return result

    def board(self, device: str, make: Callable[[], T]) -> T:
        """A board to tally (no calls played on the app) counts with the device's lobbies, per device only."""
        limit = self.limits["lobby"]
        if self._hosted(device, ("lobby", "board")) >= limit:
            raise Refused(429, "games_full", limit=limit)
        return make()

    def _hosted(self, device: str, phases: tuple[str, ...]) -> int:
        return sum(1 for game in list(self.games.values()) if game.host == device and game.phase in phases)

    def _still(self, phase: str, gids: list[str]) -> list[str]:
        games = self.games
        return [gid for gid in gids if gid in games and games[gid].phase == phase]
