"""The current game is the one whose log moved last, counted in the log itself: a Pi's clock may jump."""
from __future__ import annotations

import sqlite3

import pytest

from companion.store import db as dbmod
from companion.store.db import Store
from companion.live.hub import Hub
from companion.table import Table

GAME = {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"]}

# The events table as it was before the global order (moved) existed.
OLD_SCHEMA = """
CREATE TABLE events (game TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
                     device TEXT, at REAL NOT NULL, PRIMARY KEY (game, seq)) WITHOUT ROWID;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TABLE layouts (name TEXT PRIMARY KEY, tokens TEXT NOT NULL, saved_at REAL NOT NULL);
"""


def current_after_restart(path) -> str:
    table = Table(Store(str(path)), Hub())
    table.load()
    table.store.close()
    return table.current


def test_a_restart_follows_the_game_that_moved_last_not_the_newest(start_server, phone):
    server = start_server()
    host = phone(server)
    first = host.post("/api/games", GAME).json["id"]
    host.post("/api/games", GAME).json["id"]          # a second game: the newest, never moved
    assert host.post(f"/api/games/{first}/seats/blue", {"name": "Ann"}).status == 200
    assert host.get("/api/games/current").json["id"] == first
    server.kill()
    server.start()
    assert host.get("/api/games/current").json["id"] == first


def test_a_clock_that_jumps_back_does_not_change_the_current_game(tmp_path, monkeypatch):
    """A Pi with no RTC and no NTP: the first game is logged in 2033, the clock then falls back to 2001."""
    now = [2_000_000_000.0]
    monkeypatch.setattr(dbmod.time, "time", lambda: now[0])
    path = tmp_path / "clock.sqlite3"
    table = Table(Store(str(path)), Hub())
    early = table.create(dict(GAME), "dev-a").id
    table.claim_seat(early, "blue", "Ann", "dev-a")
    now[0] = 1_000_000_000.0
    # The host of the game shown starts the next one (issue 13: anyone else's new game would not take
    # the table from a game in progress, whatever its clock says).
    late = table.create(dict(GAME), "dev-a").id
    table.claim_seat(late, "red", "Bo", "dev-b")
    table.store.close()
    ats = dict(sqlite3.connect(path).execute("SELECT game, MAX(at) FROM events GROUP BY game").fetchall())
    assert ats[late] < ats[early], "the clock did jump back"
    assert current_after_restart(path) == late


def test_a_database_from_before_the_order_column_opens_and_then_follows_moves(tmp_path):
    old = tmp_path / "old.sqlite3"
    # Real events, written by this version, copied into the old layout with a clock that ran ahead for one game.
    fresh = Table(Store(str(tmp_path / "fresh.sqlite3")), Hub())
    a = fresh.create(dict(GAME), "dev-a").id
    b = fresh.create(dict(GAME), "dev-b").id
    rows = fresh.store.conn.execute("SELECT game, seq, kind, body, device FROM events").fetchall()
    fresh.store.close()
    conn = sqlite3.connect(old)
    conn.executescript(OLD_SCHEMA)
    conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                     [(*r, 2_000_000_000.0 if r[0] == b else 1_000_000_000.0) for r in rows])
    conn.commit()
    conn.close()

    table = Table(Store(str(old)), Hub())
    table.load()
    assert set(table.games) == {a, b} and not table.broken
    assert table.current == b, "before any move, the old rows' clock is all there is"
    table.claim_seat(a, "blue", "Ann", "dev-a")      # logged now, long before b's clock time
    assert table.current == a
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        table.store.conn.execute("UPDATE events SET at = 0")
    table.store.close()
    assert current_after_restart(old) == a
    moved = sqlite3.connect(old).execute("SELECT game, seq, moved FROM events ORDER BY game, seq").fetchall()
    assert [m for g, s, m in moved if m is not None] == [1] and (a, 2, 1) in moved
