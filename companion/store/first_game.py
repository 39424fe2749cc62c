"""Who plays their first game here: decided once, when the game starts, and written in its start event.

A seat is in its first game when no finished game on this Pi had a player of that name (folded as the standings
fold names: case and accents do not count) and its device never sat or played in a finished game. Both must hold:
a regular on a new phone, or under a new nickname on their own phone, is not new. Only `companion/views.py` (private) reads the
answer, for the seat's own device, and only to show that phone a hint: no other device is told who is new.
"""
from __future__ import annotations

from companion.store.db import Store
from companion.store.history import fold

# The events a device writes when it sits at a seat or plays from it (a rematch's seats come with its create).
PLAYED = ("seat", "move", "action")


def first_game(store: Store, names: dict, devices: dict) -> list[str]:
    """The colours (of `names`/`devices`, colour -> name / device) with no finished game under that name or device."""
    keys = {c: fold(n) for c, n in names.items() if n}
    known_names = _known(store, "SELECT DISTINCT pp.key FROM play_players pp JOIN plays p ON p.game = pp.game "
                                "WHERE p.status = 'finished' AND pp.key IN ({})", set(keys.values()))
    known_devices = _known(store, "SELECT DISTINCT e.device FROM plays p JOIN events e ON e.game = p.game "
                                  "WHERE p.status = 'finished' AND e.kind IN ('seat', 'move', 'action') "
                                  "AND e.device IN ({})", {d for d in devices.values() if d})
    return sorted(c for c in devices if keys.get(c) not in known_names and devices[c] not in known_devices)


def _known(store: Store, sql: str, wanted: set) -> set:
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    return {row[0] for row in store.read(sql.format(marks), tuple(sorted(wanted)))}
