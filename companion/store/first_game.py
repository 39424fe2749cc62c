"""Who plays their first game here: decided once, when the game starts, and written in its start event.

A seat is in its first game when no finished game on this Pi had a player of that name (folded as the standings
fold names: case and accents do not count) and its device never sat down in a finished game (a seat or a seat move;
a rematch's seats come with the same names, which the name check finds). Both must hold:
a regular on a new phone, or under a new nickname on their own phone, is not new. Only `companion/views.py` (private)
reads the answer, for the seat's own device, and only to show that phone a hint: no other device is told who is new.
"""
from __future__ import annotations

import logging
import sqlite3

from companion.store import events
from companion.store.db import Store
from companion.store.history import fold

log = logging.getLogger(__name__)


def first_game(store: Store, names: dict, devices: dict) -> list[str]:
    """The colours (of `names`/`devices`, colour -> name / device) with no finished game under that name or device;
    none when the history cannot be read (a hint is never worth a game that will not start)."""
    try:
        return _first(store, names, devices)
    except sqlite3.Error as e:
        log.warning("Who plays a first game could not be read (%s): no hints in this game.", e)
        return []


def _first(store: Store, names: dict, devices: dict) -> list[str]:
    keys = {c: fold(n) for c, n in names.items() if n}
    known_names = _known(store, "SELECT DISTINCT pp.key FROM play_players pp JOIN plays p ON p.game = pp.game "
                                "WHERE p.status = 'finished' AND pp.key IN ({})", set(keys.values()))
    # Through the small index of seat events (store/db.py, events_seats): never a scan of every bid ever made.
    known_devices = _known(store, "SELECT DISTINCT e.device FROM events e "
                                  "JOIN plays p ON p.game = e.game WHERE e." + events.sql_in("claims_seat") + " "
                                  "AND e.device IN ({}) AND p.status = 'finished'", {d for d in devices.values() if d})
    return sorted(c for c in devices if keys.get(c) not in known_names and devices[c] not in known_devices)


def _known(store: Store, sql: str, wanted: set) -> set:
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    return {row[0] for row in store.read(sql.format(marks), tuple(sorted(wanted)))}
