"""A damaged database: moved aside (kept, never deleted), and whatever games can still be read copied into a fresh one."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import tempfile
import time
from typing import Optional

MAGIC = b"SQLite format 3\x00"
SIDES = ("-wal", "-shm")   # SQLite's companions of a WAL database: they move with it


def move_aside(path: str) -> str:
    """Renames the database (and its -wal/-shm) to `<path>.damaged-<time>`; returns the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.damaged-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.damaged-{stamp}-{n}"
    os.rename(path, target)
    for side in SIDES:
        if os.path.exists(path + side):
            os.rename(path + side, target + side)
    return target


def _mend_header(path: str, wal: bool) -> None:
    """A copy's header put back to what SQLite needs to read it: the values this app's databases always have,
    wherever the damaged ones are not plausible (the page size is kept when it is one SQLite could have written)."""
    with open(path, "r+b") as f:
        head = bytearray(f.read(100))
        if len(head) < 100:
            return
        head[0:16] = MAGIC
        size = int.from_bytes(head[16:18], "big")
        if not (size == 1 or (512 <= size <= 32768 and size & (size - 1) == 0)):
            head[16:18] = (4096).to_bytes(2, "big")
        head[18] = head[19] = 2 if wal else 1
        head[20:24] = b"\x00\x40\x20\x20"
        head[92:96] = (int.from_bytes(head[24:28], "big") ^ 1).to_bytes(4, "big")  # size read from the file itself
        head[32:40] = bytes(8)          # no free list: only reading the copy
        if not 1 <= int.from_bytes(head[44:48], "big") <= 4:
            head[44:48] = (4).to_bytes(4, "big")
        head[48:56] = bytes(8)          # no cache size hint, no auto-vacuum
        if not 1 <= int.from_bytes(head[56:60], "big") <= 3:
            head[56:60] = (1).to_bytes(4, "big")
        head[64:68] = bytes(4)
        head[72:92] = bytes(20)
        f.seek(0)
        f.write(head)


# -- reading leaf pages directly: rows on intact pages come back even when the tree above them is broken --

def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = 0
    for k in range(9):
        b = buf[i + k]
        if k == 8:
            return (value << 8) | b, i + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + k + 1
    raise IndexError


def _record(payload: bytes) -> list:
    """SQLite's record format: a header of serial types, then the values."""
    size, i = _varint(payload, 0)
    types = []
    while i < size:
        t, i = _varint(payload, i)
        types.append(t)
    out, j = [], size
    for t in types:
        if t == 0:
            out.append(None)
        elif 1 <= t <= 6:
            n = (1, 2, 3, 4, 6, 8)[t - 1]
            out.append(int.from_bytes(payload[j:j + n], "big", signed=True))
            j += n
        elif t == 7:
            out.append(struct.unpack(">d", payload[j:j + 8])[0])
            j += 8
        elif t in (8, 9):
            out.append(t - 8)
        elif t >= 12:
            n = (t - 12) // 2
            raw = payload[j:j + n]
            if len(raw) != n:
                raise IndexError
            out.append(raw.decode("utf-8") if t % 2 else raw)
            j += n
        else:
            raise ValueError("reserved serial type")
    return out


def _index_cells(page: bytes, start: int, usable: int, pages) -> list:
    """The records of one index page, leaf or interior (WITHOUT ROWID tables keep whole rows in both), overflow
    chains followed."""
    kind = page[start]
    if kind not in (0x0A, 0x02):
        return []
    head = 8 if kind == 0x0A else 12
    skip = 0 if kind == 0x0A else 4          # an interior cell starts with its left child's page number
    count = int.from_bytes(page[start + 3:start + 5], "big")
    x = (usable - 12) * 64 // 255 - 23
    m = (usable - 12) * 32 // 255 - 23
    rows = []
    for c in range(count):
        try:
            at = int.from_bytes(page[start + head + 2 * c:start + head + 2 + 2 * c], "big") + skip
            size, i = _varint(page, at)
            if size <= x:
                payload = page[i:i + size]
            else:
                k = m + (size - m) % (usable - 4)
                local = k if k <= x else m
                payload = bytearray(page[i:i + local])
                nxt = int.from_bytes(page[i + local:i + local + 4], "big")
                seen = set()
                while len(payload) < size and nxt and nxt not in seen:
                    seen.add(nxt)
                    over = pages(nxt)
                    if over is None:
                        break
                    payload += over[4:usable][:size - len(payload)]
                    nxt = int.from_bytes(over[:4], "big")
                payload = bytes(payload)
            if len(payload) != size:
                continue
            rows.append(_record(payload))
        except (IndexError, ValueError, UnicodeDecodeError):
            continue
    return rows


def scan_events(path: str) -> dict:
    """Every event row found on any intact leaf page of the file or its WAL: {(game, seq): row}."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    size = int.from_bytes(data[16:18], "big") if data[:16] == MAGIC else 4096
    size = 65536 if size == 1 else size
    if not (512 <= size <= 65536 and size & (size - 1) == 0):
        size = 4096
    usable = size - (data[20] if data[:16] == MAGIC else 0)
    images = [data[k:k + size] for k in range(0, len(data) - size + 1, size)]
    try:
        with open(path + "-wal", "rb") as f:
            wal = f.read()
        wsize = int.from_bytes(wal[8:12], "big")
        if wsize == size:
            images += [wal[k + 24:k + 24 + size] for k in range(32, len(wal) - size - 23, size + 24)]
    except OSError:
        pass

    def page(n: int):
        return images[n - 1] if 0 < n <= len(images) else None

    found: dict = {}
    for n, image in enumerate(images, 1):
        start = 100 if n == 1 else 0
        for row in _index_cells(image, start, usable, page):
            # (game, seq, kind, body, device, at) and, since the global order, moved; a row written before
            # moved existed has only six values. (The events_moved index's rows have three: not these.)
            if (len(row) in (6, 7) and isinstance(row[0], str) and type(row[1]) is int and isinstance(row[2], str)
                    and isinstance(row[3], str) and (row[4] is None or isinstance(row[4], str))
                    and isinstance(row[5], (int, float)) and (len(row) == 6 or row[6] is None or type(row[6]) is int)):
                try:
                    json.loads(row[3])
                except ValueError:
                    continue
                found.setdefault((row[0], row[1]), tuple(row) + (None,) * (7 - len(row)))
    return found


def _game_ids(old: sqlite3.Connection) -> list[str]:
    """Every game id that can be read: in one pass, or else one seek past the last one found at a time."""
    try:
        return [r[0] for r in old.execute("SELECT DISTINCT game FROM events ORDER BY game")]
    except sqlite3.DatabaseError:
        pass
    found: list[str] = []
    last = ""
    while True:
        try:
            row = old.execute("SELECT game FROM events WHERE game > ? ORDER BY game LIMIT 1", (last,)).fetchone()
        except sqlite3.DatabaseError:
            return found
        if row is None:
            return found
        last = row[0]
        found.append(last)


def _events(old: sqlite3.Connection, game: str, moved: str = "moved") -> list[tuple]:
    """A game's events 1, 2, 3 ... up to the first one that is missing or unreadable: a log is only good as a prefix."""
    out = []
    seq = 1
    while True:
        try:
            row = old.execute(f"SELECT kind, body, device, at, {moved} FROM events WHERE game = ? AND seq = ?",
                              (game, seq)).fetchone()
            if row is None:
                return out
            json.loads(row[1])
        except (sqlite3.DatabaseError, ValueError, TypeError):
            return out
        out.append((game, seq, *row))
        seq += 1


def _layouts(old: sqlite3.Connection) -> list[tuple]:
    rows = []
    try:
        columns = {r[1] for r in old.execute("PRAGMA table_info(layouts)")}
        extra = ", ".join(c if c in columns else "NULL" for c in ("device", "players"))
        for row in old.execute(f"SELECT name, tokens, saved_at, {extra} FROM layouts"):
            rows.append(row)
    except sqlite3.DatabaseError:
        pass
    return rows


def _merges(old: sqlite3.Connection) -> list[tuple]:
    """The table's name merges, oldest first (the newest row for a name wins, so their order is kept)."""
    try:
        return list(old.execute("SELECT alias, into_, device, at FROM name_merges ORDER BY id"))
    except sqlite3.DatabaseError:
        return []


def _secrets(old: sqlite3.Connection) -> list[tuple]:
    """The table's secrets (the Pi's seed): kept, so a recovered game's Pi still thinks the moves it would have."""
    try:
        return list(old.execute("SELECT name, value FROM secrets"))
    except sqlite3.DatabaseError:
        return []


def _insert(into: sqlite3.Connection, sql: str, rows: list) -> None:
    """One transaction (one fsync) per game."""
    into.execute("BEGIN")
    try:
        into.executemany(sql, rows)
    except BaseException:
        into.execute("ROLLBACK")
        raise
    into.execute("COMMIT")


def recover(damaged: str, into: sqlite3.Connection) -> int:
    """Copies every readable game (the readable prefix of its log), layout and name merge from `damaged`; returns the
    games copied.

    Two readers, whichever gets further: SQLite through the tree, and a scan of every leaf page (an append-only
    log never changes a row, so any copy of a row found is the row). Reads a copy: the file kept aside stays
    exactly as it was found."""
    work = tempfile.mkdtemp(prefix="companion-recover-", dir=os.path.dirname(os.path.abspath(damaged)) or None)
    try:
        copy = os.path.join(work, "damaged.sqlite3")
        shutil.copyfile(damaged, copy)
        wal = False
        for side in SIDES:
            if os.path.exists(damaged + side):
                shutil.copyfile(damaged + side, copy + side)
                wal = wal or side == "-wal"
        scanned = scan_events(copy)
        games, by_tree, layouts, merges, secrets = set(), {}, [], [], []
        try:
            with open(copy, "rb") as f:
                if f.read(16) != MAGIC:
                    _mend_header(copy, wal)
            old = sqlite3.connect(copy, isolation_level=None)
            try:
                games = set(_game_ids(old))
                try:
                    columns = {r[1] for r in old.execute("PRAGMA table_info(events)")}
                except sqlite3.DatabaseError:
                    columns = set()
                moved = "moved" if "moved" in columns else "NULL"
                by_tree = {g: _events(old, g, moved) for g in games}
                layouts, merges, secrets = _layouts(old), _merges(old), _secrets(old)
            finally:
                old.close()
        except (OSError, sqlite3.DatabaseError):
            pass
        count = 0
        for game in sorted(games | {g for g, _ in scanned}):
            rows = list(by_tree.get(game, []))
            seq = len(rows) + 1
            while (game, seq) in scanned:   # where the tree broke off, the pages themselves go on
                rows.append(scanned[(game, seq)])
                seq += 1
            if rows:
                _insert(into, "INSERT OR IGNORE INTO events (game, seq, kind, body, device, at, moved) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
                count += 1
        if layouts:
            _insert(into, "INSERT OR IGNORE INTO layouts (name, tokens, saved_at, device, players) "
                          "VALUES (?, ?, ?, ?, ?)", layouts)
        if merges:
            _insert(into, "INSERT INTO name_merges (alias, into_, device, at) VALUES (?, ?, ?, ?)", merges)
        if secrets:
            _insert(into, "INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)", secrets)
        return count
    except (OSError, sqlite3.DatabaseError):
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def damage(error: Optional[BaseException]) -> bool:
    """An error that says the file itself is damaged (not a full disk, a lock or a missing directory)."""
    if error is None:
        return False
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return True
    text = str(error).lower()
    return "malformed" in text or "not a database" in text
