"""The first pages after a start: what a player waits for the first time the table or a phone asks. Prints figures.

    .venv/bin/python benchmarks/bench_first_page.py [--runs 5] [--core 0]

Each run starts a fresh `companion serve` pinned to one core (taskset), waits until it answers, then times, one
after the other on one keep-alive connection: the first /table (the north-up map), a second /table, the first phone
page /g/<id> (the portrait map) and a second one. The first minus the second is what the first request costs extra.
Also prints, in this process, what loading the shipped map costs against computing it (the work the Pi no longer does).
"""
from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from server_helpers import LiveServer  # noqa: E402

PATHS = [("first /table", "/table"), ("second /table", "/table"), ("first phone", "/g/bench"),
         ("second phone", "/g/bench")]


def one_run(core: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        s = LiveServer(Path(d) / "first.sqlite3", cmd_prefix=("taskset", "-c", str(core)))
        try:
            s.start()
            conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
            out = {}
            for name, path in PATHS:
                t0 = time.perf_counter()
                conn.request("GET", path)
                r = conn.getresponse()
                r.read()
                out[name] = time.perf_counter() - t0
                assert r.status == 200, (path, r.status)
            conn.close()
            return out
        finally:
            s.kill()


def in_process() -> dict:
    """Seconds to compute both drawings from the sites, and to load the shipped file (fresh caches each)."""
    from companion.web import boardmap as served
    from tools import boardmap
    out = {}
    t0 = time.perf_counter()
    boardmap.drawing(False), boardmap.drawing(True)
    out["compute both orientations"] = time.perf_counter() - t0
    loads = []
    for _ in range(20):
        served.drawn_file.cache_clear()
        t0 = time.perf_counter()
        served.shipped(False), served.shipped(True)
        loads.append(time.perf_counter() - t0)
    out["load shipped file (median of 20)"] = statistics.median(loads)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--core", type=int, default=0)
    args = ap.parse_args()
    runs = [one_run(args.core) for _ in range(args.runs)]
    print(f"{args.runs} fresh servers on core {args.core}, median (min-max) per request:")
    for name, _ in PATHS:
        xs = [r[name] for r in runs]
        print(f"  {name:14s} {1000 * statistics.median(xs):8.1f} ms  ({1000 * min(xs):.1f}-{1000 * max(xs):.1f})")
    for name, secs in in_process().items():
        print(f"  in process: {name:34s} {1000 * secs:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
