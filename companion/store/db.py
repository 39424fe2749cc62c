"""SQLite, opened lazily: each game is an append-only log of events keyed by (game, seq).

`plays` (and `play_players`) hold one summary per finished or abandoned game, written in the same
transaction as the event that ends it: a cache of the log that lets the server start without
replaying old games. `name_merges` is append-only like the log: the newest row for a name wins.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import threading
import time
import urllib.parse
from typing import Callable, Iterator, Optional

# Work done inside an event's transaction: (connection, the event's time) -> None.
Also = Callable[[sqlite3.Connection, float], None]

from companion.store import events, recover
from companion.store.note import Note

log = logging.getLogger(__name__)
# json.dumps(value, separators=(",", ":")) without building a new encoder at each call: an action's body is
# written at every bid (the same text as before, byte for byte).
compact = json.JSONEncoder(separators=(",", ":")).encode
SEATS_KINDS = events.sql_in("claims_seat")   # the kinds the events_seats index holds, built once

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
-- Each game's first event: start-up lists the games without reading the log itself.
CREATE INDEX IF NOT EXISTS events_first ON events (game, at) WHERE seq = 1;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE INDEX IF NOT EXISTS events_moved ON events (moved);
-- The games a device sat down in (a few rows per game): who plays their first game here (store/first_game.py).
CREATE INDEX IF NOT EXISTS events_seats ON events (device) WHERE """ + SEATS_KINDS + """;
CREATE TABLE IF NOT EXISTS plays (
    game       TEXT    PRIMARY KEY,
    seq        INTEGER NOT NULL,   -- the event that ended the game
    status     TEXT    NOT NULL,   -- 'finished' or 'abandoned'
    mode       TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    started_at REAL,
    ended_at   REAL    NOT NULL,
    summary    TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS plays_by_end ON plays (ended_at);
CREATE INDEX IF NOT EXISTS plays_by_creation ON plays (created_at);
CREATE TABLE IF NOT EXISTS play_players (
    game    TEXT    NOT NULL,
    seat    INTEGER NOT NULL,
    color   TEXT    NOT NULL,
    name    TEXT    NOT NULL,
    key     TEXT    NOT NULL,      -- the name folded: case and accents do not count
    score   INTEGER NOT NULL,
    rank    INTEGER NOT NULL,
    winner  INTEGER NOT NULL,
    PRIMARY KEY (game, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS play_players_by_key ON play_players (key);
CREATE TABLE IF NOT EXISTS name_merges (
    id     INTEGER PRIMARY KEY,
    alias  TEXT NOT NULL,          -- a folded name ...
    into_  TEXT NOT NULL,          -- ... counted from now on as this one (itself: merge undone)
    device TEXT,
    at     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS secrets (
    name  TEXT PRIMARY KEY,        -- what it seeds ("pi": the Pi's decisions)
    value BLOB NOT NULL            -- made once here, never sent to any device
);
CREATE TABLE IF NOT EXISTS layouts (
    name     TEXT PRIMARY KEY,
    tokens   TEXT NOT NULL,
    saved_at REAL NOT NULL
);
"""
# Added later: who saved a layout (only that device may overwrite it) and for how many players it is.
LAYOUT_COLUMNS = {"device": "TEXT", "players": "INTEGER"}
# Added later: the level of a seat the Pi played (NULL: a person), so a person named like the Pi is never counted as
# it. Rows from before it are filled once from the log's own "pi" events (the last one for the seat's colour).
PI_COLUMN_FILL = """UPDATE play_players SET pi = (SELECT json_extract(e.body, '$.level') FROM events e
    WHERE e.game = play_players.game AND e.kind = '""" + events.Pi.kind + """' AND json_extract(e.body, '$.color') = play_players.color
    ORDER BY e.seq DESC LIMIT 1)"""


class StoreError(Exception):
    """A write the database did not take: nothing was recorded, and the device is told why."""

    key = "db_failed"


class StoreGone(StoreError):
    key = "db_replaced"


class StoreFull(StoreError):
    key = "disk_full"


class StoreReadOnly(StoreError):
    key = "db_read_only"


class Store:
    """One connection shared by the server's threads, serialised by a lock; writes are durable on return."""

    def __init__(self, path: str):
        self.path = path
        self._conn: Optional[sqlite3.Connection] = None
        self._lock = threading.RLock()   # open() may run from inside a read that found no connection yet
        self._identity: Optional[tuple[int, int]] = None   # (st_dev, st_ino) of the file we opened
        self.moved: Optional[dict] = None   # {"path", "recovered", "why"} when a damaged file was moved aside
        self.lost: Optional[dict] = None    # the acknowledged event the log no longer has: {"game", "seq", "kind", "body"}
        self.read_only: Optional[str] = None   # why nothing can be written (the file or its folder is read-only)
        self.full = False                   # the last write failed for want of room (every screen says so)
        self.checked = False                # the whole file was read at open (after an unclean stop)
        self.damaged: Optional[str] = None  # what check() found wrong: the next start reads the file whole
        plain = path != ":memory:" and not path.startswith("file:")
        self.note: Optional[Note] = Note(path) if plain else None
        self._last: dict = {}
        self._secrets: dict[str, bytes] = {}   # only for a read-only file that has none stored

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a bid acknowledged to a phone has been fsynced, power cut or not.
            conn.execute("PRAGMA synchronous=FULL")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
            if columns and "moved" not in columns:
                # Databases from before the global order: their rows keep moved NULL (the log is never rewritten).
                conn.execute("ALTER TABLE events ADD COLUMN moved INTEGER")
            conn.executescript(SCHEMA)
            have = {row[1] for row in conn.execute("PRAGMA table_info(layouts)")}
            for column, kind in LAYOUT_COLUMNS.items():
                if column not in have:
                    conn.execute(f"ALTER TABLE layouts ADD COLUMN {column} {kind}")
            if "pi" not in {row[1] for row in conn.execute("PRAGMA table_info(play_players)")}:
                conn.execute("ALTER TABLE play_players ADD COLUMN pi TEXT")
                conn.execute(PI_COLUMN_FILL)
        except BaseException:
            conn.close()
            raise
        self._identity = self._stat()
        return conn

    def _stat(self) -> Optional[tuple[int, int]]:
        if self.path == ":memory:" or self.path.startswith("file:"):
            return None
        st = os.stat(self.path)
        return st.st_dev, st.st_ino

    def open(self) -> Optional[dict]:
        """Open the database. After an unclean stop (or with no note) it is read whole first, and one that
        cannot be read is moved aside and its readable games recovered; after a clean stop nothing old is
        read here (check() reads it once the server answers). A read-only file is opened read-only."""
        with self._lock:
            if self._conn is not None:
                return self.moved
            previous = self.note.read() if self.note is not None else None
            if self._open_read_only():
                return None
            clean = bool(previous and previous.get("clean")) and not self.checked
            why = None
            try:
                conn = self._connect()
                try:
                    if not clean:
                        why = self._read_whole(conn)
                        self.checked = True
                except sqlite3.DatabaseError as e:
                    if not recover.damage(e):
                        conn.close()
                        raise
                    why = str(e)
                if why is None:
                    self._conn = conn
                    self._opened(previous)
                    return None
                conn.close()
            except sqlite3.DatabaseError as e:
                if not recover.damage(e) or not os.path.exists(self.path):
                    raise
                why = str(e)
            aside = recover.move_aside(self.path)
            conn = self._connect()
            count = recover.recover(aside, conn)
            self._conn = conn
            self.moved = {"path": os.path.abspath(aside), "recovered": count, "why": why}
            log.error("The database %s could not be read (%s): moved aside to %s, %d games recovered into a "
                      "fresh one.", self.path, why, aside, count)
            self._opened(previous)
            return self.moved

    @staticmethod
    def _read_whole(conn: sqlite3.Connection) -> Optional[str]:
        """Why the file cannot be trusted, or None: SQLite's quick check, then every row of the log read once."""
        result = conn.execute("PRAGMA quick_check").fetchone()[0]
        if result != "ok":
            return f"quick_check: {result}"
        for _ in conn.execute("SELECT game, seq, kind, body FROM events"):
            pass
        for _ in conn.execute("SELECT name, tokens FROM layouts"):
            pass
        return None

    def _opened(self, previous: Optional[dict]) -> None:
        """Compare the log with the note of the last acknowledged event; from now on a stop is unclean until close()."""
        if previous and previous.get("game") and isinstance(previous.get("seq"), int):
            row = self._conn.execute("SELECT MAX(seq) FROM events WHERE game = ?", (previous["game"],)).fetchone()
            if (row[0] or 0) < previous["seq"]:
                self.lost = {k: previous.get(k) for k in ("game", "seq", "kind", "body")}
                log.error("The last acknowledged event (game %s, event %s) is not in the database: it was lost "
                          "when the storage was damaged.", previous["game"], previous["seq"])
        self._last = {k: previous[k] for k in ("game", "seq", "kind", "body") if previous and k in previous}
        if self.note is not None:
            self.note.write(dict(self._last, clean=False))

    def _open_read_only(self) -> bool:
        """A file (or folder) the service may not write: opened read-only, so the games can still be shown."""
        if self.note is None or not os.path.exists(self.path):
            return False
        folder = os.path.dirname(os.path.abspath(self.path))
        if os.access(self.path, os.W_OK) and os.access(folder, os.W_OK):
            return False
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path))
        for mode in ("?mode=ro", "?immutable=1"):   # a WAL file needs its -shm: immutable when that cannot be made
            try:
                conn = sqlite3.connect(uri + mode, uri=True, check_same_thread=False, isolation_level=None)
                conn.execute("SELECT count(*) FROM events").fetchone()
            except sqlite3.DatabaseError:
                continue
            self._conn = conn
            self.read_only = os.path.abspath(self.path) if not os.access(self.path, os.W_OK) else folder
            log.error("The database %s is read-only (%s cannot be written): the games are shown, nothing can be "
                      "recorded.", self.path, self.read_only)
            return True
        return False

    def reopen_checked(self) -> Optional[dict]:
        """Damage found where a clean stop promised none: open again, reading the whole file first."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self.checked = True
            return self.open()

    def check(self) -> Optional[str]:
        """Read the whole file once (after a clean start, once the server answers); what is wrong, or None.
        A damaged file is then treated as after an unclean stop: the next start moves it aside and recovers it."""
        if self.checked or self.read_only or self.note is None:
            return None
        self.checked = True
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False)
            try:
                why = self._read_whole(conn)
            finally:
                conn.close()
        except sqlite3.DatabaseError as e:
            why = str(e)
        if why is not None:
            log.error("The database %s is damaged (%s): restart the companion to move it aside and recover its "
                      "games.", self.path, why)
            with self._lock:
                self.damaged = why
                self.note.write(dict(self._last, clean=False, damaged=why))
        return why

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self.open()
        return self._conn

    def _transaction(self, work: Also) -> None:
        """`work` in one durable transaction, refused if the file was removed or replaced under us, or the disk is full."""
        with self._lock:
            conn = self.conn
            if self.read_only:
                raise StoreReadOnly(self.read_only)
            try:
                now = self._stat()
            except OSError:
                now = ()
            if self._identity is not None and now != self._identity:
                raise StoreGone(self.path)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    work(conn, time.time())
                    conn.execute("COMMIT")   # the WAL is written (and fsynced) here: a full disk shows here too
                    self.full = False
                except BaseException:
                    if conn.in_transaction:
                        try:
                            conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass
                    raise
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as e:
                name = getattr(e, "sqlite_errorname", "") or ""
                if name.startswith("SQLITE_FULL") or "full" in str(e).lower() or self._disk_full():
                    self.full = True
                    raise StoreFull(str(e)) from e
                raise StoreError(str(e)) from e

    def _write(self, sql: str, params: tuple) -> None:
        self._transaction(lambda conn, at: conn.execute(sql, params))

    def _disk_full(self) -> bool:
        try:
            return shutil.disk_usage(os.path.dirname(os.path.abspath(self.path))).free < 64 * 1024
        except OSError:
            return False

    def append(self, game: str, seq: int, kind: str, body: dict, device: Optional[str] = None,
               also: Optional[Also] = None) -> None:
        """Write event `seq` of `game`, and `also` in the same transaction; fails (IntegrityError) if that seq is
        taken, StoreError if nothing was written."""
        def work(conn: sqlite3.Connection, at: float) -> None:
            # moved: one count across all games, so "which game moved last" never trusts the clock.
            conn.execute(
                "INSERT INTO events (game, seq, kind, body, device, at, moved) VALUES (?, ?, ?, ?, ?, ?, "
                "(SELECT COALESCE(MAX(moved), 0) + 1 FROM events))",
                (game, seq, kind, compact(body), device, at),
            )
            if also is not None:
                also(conn, at)

        event = {"game": game, "seq": seq, "kind": kind, "body": body if kind == events.Action.kind else None}
        with self._lock:
            # The note says the event is acknowledged while the COMMIT makes it durable (Note.with_commit: by the
            # COMMIT's own flush, or by its own fsync side by side). Power lost between them makes the next start
            # name an action its phone was never told of (it is that player's turn again); a COMMIT that fails
            # puts the note back as it was.
            noting = None
            if self.note is not None and not self.read_only:
                noting = self.note.with_commit(dict(event, clean=False))
            try:
                self._transaction(work)
            except BaseException:
                if noting is not None:
                    noting.result()
                if self.note is not None and not self.read_only:
                    self.note.write(dict(self._last, clean=False))
                raise
            if noting is not None:
                noting.result()
            self._last = event   # acknowledged from here on: a start that finds it gone can say which

    def write(self, work: Also) -> None:
        """`work` in one transaction of its own (a summary backfilled for an older database; skipped read-only)."""
        if self.read_only:
            return
        self._transaction(work)

    def read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def games(self) -> list[str]:
        """Game ids, oldest first (games logged before `moved` existed first, by their clock)."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT game FROM events WHERE seq = 1 ORDER BY moved, at, game").fetchall()
        return [r[0] for r in rows]

    def open_games(self) -> list[tuple[str, float]]:
        """(game, created_at) of games with no summary yet (being played, or from before summaries), oldest first."""
        with self._lock:
            return self.conn.execute(
                "SELECT e.game, e.at FROM events e INDEXED BY events_first WHERE e.seq = 1 "
                "AND NOT EXISTS (SELECT 1 FROM plays p WHERE p.game = e.game) ORDER BY e.at, e.game").fetchall()

    def last_moved(self) -> Optional[str]:
        """The game whose log grew last, by the global count; the clock only for databases from before it."""
        with self._lock:
            row = self.conn.execute(
                "SELECT game FROM events WHERE moved = (SELECT MAX(moved) FROM events)").fetchone()
            if row is None:
                row = self.conn.execute("SELECT game FROM events ORDER BY at DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def events_of(self, games: set[str]) -> Iterator[tuple[str, int, str, dict, Optional[str]]]:
        """Every event of these games in the order they were logged (by the global count); rows from
        before that count existed come first, game after game by their first event's clock."""
        if not games:
            return
        with self._lock:
            rows = self.conn.execute(
                "SELECT e.game, e.seq, e.kind, e.body, e.device FROM events e "
                "JOIN events f ON f.game = e.game AND f.seq = 1 "
                "WHERE e.game IN (SELECT value FROM json_each(?)) "
                "ORDER BY e.moved IS NOT NULL, e.moved, f.at, e.game, e.seq", (json.dumps(sorted(games)),)).fetchall()
        for game, seq, kind, body, device in rows:
            yield game, seq, kind, json.loads(body), device

    def changed_at(self, games: set[str]) -> dict[str, float]:
        """Each game's last event's time (epoch seconds): how long a game has been left alone."""
        with self._lock:
            return dict(self.conn.execute("SELECT game, MAX(at) FROM events WHERE game IN "
                                          "(SELECT value FROM json_each(?)) GROUP BY game",
                                          (json.dumps(sorted(games)),)).fetchall())

    def exists(self, game: str) -> bool:
        with self._lock:
            return self.conn.execute("SELECT 1 FROM events WHERE game = ? AND seq = 1", (game,)).fetchone() is not None

    def device_known(self, device: str, besides: str) -> bool:
        """Whether this device wrote to the log of another game: seen at this table before."""
        with self._lock:
            return self.conn.execute("SELECT 1 FROM events WHERE device = ? AND game != ? LIMIT 1",
                                     (device, besides)).fetchone() is not None

    def last_played(self, device: str) -> Optional[float]:
        """When this device last took a seat at this table (epoch seconds), or None: shown beside its ask."""
        with self._lock:
            row = self.conn.execute("SELECT MAX(at) FROM events INDEXED BY events_seats WHERE device = ? "
                                    "AND " + SEATS_KINDS, (device,)).fetchone()
        return row[0] if row else None

    def events(self, game: str) -> Iterator[tuple[int, str, dict, Optional[str]]]:
        with self._lock:
            rows = self.conn.execute(
                "SELECT seq, kind, body, device FROM events WHERE game = ? ORDER BY seq", (game,)).fetchall()
        for seq, kind, body, device in rows:
            yield seq, kind, json.loads(body), device

    def save_layout(self, name: str, tokens: dict, device: Optional[str] = None, players: Optional[int] = None) -> None:
        self._write("INSERT INTO layouts (name, tokens, saved_at, device, players) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(name) DO UPDATE SET tokens = excluded.tokens, saved_at = excluded.saved_at, "
                    "players = excluded.players",
                    (name, json.dumps(tokens, sort_keys=True), time.time(), device, players))

    def layouts(self) -> list[dict]:
        """Every saved layout's name and player count, without the tokens: a list stays small however many there are."""
        with self._lock:
            rows = self.conn.execute("SELECT name, players FROM layouts ORDER BY name").fetchall()
        return [{"name": n, "players": p} for n, p in rows]

    def layout(self, name: str) -> Optional[dict]:
        with self._lock:
            row = self.conn.execute("SELECT tokens, device FROM layouts WHERE name = ?", (name,)).fetchone()
        return None if row is None else {"name": name, "tokens": json.loads(row[0]), "device": row[1]}

    def secret(self, name: str) -> bytes:
        """A random secret made once and kept with the games, so a restart derives the same values from it.
        Nothing outside this Pi may learn it: no route reads this table, and history exports read only their own."""
        row = None
        with self._lock:
            conn = self.conn
            try:
                row = conn.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
                if row is None and not self.read_only:
                    conn.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, os.urandom(32)))
                    row = conn.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
            except sqlite3.OperationalError:   # a read-only file from before the table existed
                row = None
        if row is None:   # a read-only file without one: this run's own, kept in memory
            row = (self._secrets.setdefault(name, os.urandom(32)),)
        return bytes(row[0])

    def layout_count(self, device: Optional[str] = None) -> int:
        """How many layouts there are (saved by `device`, when given)."""
        with self._lock:
            if device is None:
                return self.conn.execute("SELECT count(*) FROM layouts").fetchone()[0]
            return self.conn.execute("SELECT count(*) FROM layouts WHERE device = ?", (device,)).fetchone()[0]

    def close(self) -> None:
        """A clean stop: the next start need not read the whole file."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                if self.note is not None and not self.read_only:
                    self.note.write(dict(self._last, clean=self.damaged is None))
            if self.note is not None:
                self.note.close()
