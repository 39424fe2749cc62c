"""The log's kinds as classes (companion/store/events.py, issue 38): what is written does not change by a byte."""
from __future__ import annotations

import json
import sqlite3

from companion.store import db, events
from companion.table.game import EVENTS


def test_every_kind_reads_and_writes_its_body_unchanged():
    """An older log's body comes back out exactly as it was stored (../RECORD.md is read by outside programs)."""
    body = {"player": "red", "bid": "C08", "value": 3, "by_host": True, "nested": {"a": [1, 2]}}
    for kind, cls in events.KINDS.items():
        event = events.of(kind, json.loads(json.dumps(body)))
        assert type(event) is cls and event.kind == kind
        assert json.dumps(event.body(), separators=(",", ":")) == json.dumps(body, separators=(",", ":"))


def test_every_kind_has_its_handler_and_an_unknown_kind_is_refused():
    assert set(EVENTS) == set(events.KINDS.values()) and len(events.KINDS) == 21
    try:
        events.of("pause", {})
    except ValueError as e:
        assert "unknown event kind 'pause'" in str(e)
    else:
        raise AssertionError("an unknown kind was read")


def test_the_schema_built_from_the_kinds_is_the_one_already_on_disk():
    """A database made before the module keeps its partial index: the same text, so the seat queries still use it."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(db.SCHEMA)
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events_seats'").fetchone()
    assert sql == "CREATE INDEX events_seats ON events (device) WHERE kind IN ('seat', 'move')"
    assert events.sql_in("clocks_play") == "kind IN ('start', 'tally')"
