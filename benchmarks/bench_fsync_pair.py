"""The log's COMMIT and the note's fsync one after the other, then side by side (as store/db.py's append does):
what an action waits for on this disk. Prints figures; not a test.

    .venv/bin/python benchmarks/bench_fsync_pair.py [FOLDER] [--rounds 6]   # FOLDER on the disk to measure (/tmp)
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default=tempfile.gettempdir())
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    where = tempfile.mkdtemp(dir=args.folder)
    conn = sqlite3.connect(os.path.join(where, "log.sqlite3"), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")       # as the companion's store
    conn.execute("CREATE TABLE events (k INTEGER PRIMARY KEY, body TEXT)")
    fd = os.open(os.path.join(where, "log.sqlite3.last"), os.O_RDWR | os.O_CREAT, 0o600)
    pool = ThreadPoolExecutor(1)

    def note(i: int) -> None:
        os.pwrite(fd, (b'{"seq":%d}' % i).ljust(512), 0)
        os.fdatasync(fd)

    def commit() -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO events (body) VALUES (?)", ("x" * 300,))
        conn.execute("COMMIT")

    after, beside = [], []
    for _ in range(args.rounds):   # interleaved, so a busy minute falls on both
        for i in range(50):
            t = time.perf_counter()
            commit()
            note(i)
            after.append(time.perf_counter() - t)
        for i in range(50):
            t = time.perf_counter()
            pending = pool.submit(note, i)
            commit()
            pending.result()
            beside.append(time.perf_counter() - t)
    ms = lambda xs: f"median {statistics.median(xs) * 1000:.2f} ms, p90 {sorted(xs)[int(len(xs) * .9)] * 1000:.2f} ms"
    print(f"{where}: one after the other {ms(after)}; side by side {ms(beside)} ({len(after)} each; "
          f"load {os.getloadavg()[0]:.2f})")
    os.close(fd)
    conn.close()
    shutil.rmtree(where)


if __name__ == "__main__":
    main()
