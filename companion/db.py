"""SQLite, opened lazily: each game is an append-only log of events keyed by (game, seq)."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Iterator, Optional

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    game   TEXT    NOT NULL,
    seq    INTEGER NOT NULL,
    kind   TEXT    NOT NULL,
    body   TEXT    NOT NULL,
    device TEXT,
    at     REAL    NOT NULL,
    moved  INTEGER,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE INDEX IF NOT EXISTS events_moved ON events (moved);
CREATE TABLE IF NOT EXISTS layouts (
    name     TEXT PRIMARY KEY,
    tokens   TEXT NOT NULL,
    saved_at REAL NOT NULL
);
"""


class Store:
    """One connection shared by the server's threads, serialised by a lock; writes are durable on return."""

    def __init__(self, path: str):
        self.path = path
        self._conn: Optional[sqlite3.Connection] = None
        self._lock = threading.Lock()

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a bid acknowledged to a phone has been fsynced, power cut or not.
            conn.execute("PRAGMA synchronous=FULL")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
            if columns and "moved" not in columns:
                # Databases from before the global order: their rows keep moved NULL (the log is never rewritten).
                conn.execute("ALTER TABLE events ADD COLUMN moved INTEGER")
            conn.executescript(SCHEMA)
            self._conn = conn
        return self._conn

    def append(self, game: str, seq: int, kind: str, body: dict, device: Optional[str] = None) -> None:
        """Write event `seq` of `game`; fails (IntegrityError) if that seq is already taken."""
        with self._lock:
            # moved: one count across all games, so "which game moved last" never trusts the clock.
            self.conn.execute(
                "INSERT INTO events (game, seq, kind, body, device, at, moved) VALUES (?, ?, ?, ?, ?, ?, "
                "(SELECT COALESCE(MAX(moved), 0) + 1 FROM events))",
                (game, seq, kind, json.dumps(body, separators=(",", ":")), device, time.time()),
            )

    def games(self) -> list[str]:
        """Game ids, oldest first (games logged before `moved` existed first, by their clock)."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT game FROM events WHERE seq = 1 ORDER BY moved, at, game").fetchall()
        return [r[0] for r in rows]

    def last_moved(self) -> Optional[str]:
        """The game whose log grew last, by the global count; the clock only for databases from before it."""
        with self._lock:
            row = self.conn.execute(
                "SELECT game FROM events WHERE moved = (SELECT MAX(moved) FROM events)").fetchone()
            if row is None:
                row = self.conn.execute("SELECT game FROM events ORDER BY at DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def all_events(self) -> Iterator[tuple[str, int, str, dict, Optional[str]]]:
        """Every event of every game in the order they were logged (by the global count); rows from
        before that count existed come first, game after game by their first event's clock."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT e.game, e.seq, e.kind, e.body, e.device FROM events e "
                "JOIN (SELECT game, at AS started FROM events WHERE seq = 1) f ON f.game = e.game "
                "ORDER BY e.moved IS NOT NULL, e.moved, f.started, e.game, e.seq").fetchall()
        for game, seq, kind, body, device in rows:
            yield game, seq, kind, json.loads(body), device

    def events(self, game: str) -> Iterator[tuple[int, str, dict, Optional[str]]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT seq, kind, body, device FROM events WHERE game = ? ORDER BY seq", (game,)).fetchall()
        for seq, kind, body, device in rows:
            yield seq, kind, json.loads(body), device

    def save_layout(self, name: str, tokens: dict) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT INTO layouts (name, tokens, saved_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET tokens = excluded.tokens, saved_at = excluded.saved_at",
                (name, json.dumps(tokens, sort_keys=True), time.time()))

    def layouts(self) -> list[dict]:
        with self._lock:
            rows = self.conn.execute("SELECT name, tokens FROM layouts ORDER BY name").fetchall()
        return [{"name": n, "tokens": json.loads(t)} for n, t in rows]

    def integrity(self) -> str:
        with self._lock:
            return self.conn.execute("PRAGMA integrity_check").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
