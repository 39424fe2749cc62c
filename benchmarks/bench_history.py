"""What old games cost the server: start-up time and memory with 0, 100 and 1,000 finished games. Prints figures.

    .venv/bin/python benchmarks/bench_history.py [--runs 7] [--counts 0,100,1000] [--core 0]

Games are played by the real rules engine and their logs written straight into SQLite with the real
Store (tests/history_games.py), with the summary row the table writes when a game ends. Start-up is
`companion serve` (pinned to one core) from launch to its first answered request, polled every 2 ms;
memory is the gunicorn worker's RSS (and master + worker PSS) right after that first answer, and again
after one old game's view and record were opened.
"""
from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from history_games import write_games  # noqa: E402
from server_helpers import LiveServer  # noqa: E402


def smaps(pid: int) -> dict:
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts[0] in ("Rss:", "Pss:"):
            out[parts[0][:-1]] = int(parts[1]) / 1024
    return out


def get(port: int, path: str) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path, headers={"Origin": f"http://127.0.0.1:{port}"})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def start(db: Path, core: int) -> tuple[float, LiveServer]:
    s = LiveServer(db, cmd_prefix=("taskset", "-c", str(core)))
    t0 = time.perf_counter()
    import subprocess
    out = open(s.log, "ab")
    s.proc = subprocess.Popen(
        [*s.cmd_prefix, str(ROOT / ".venv" / "bin" / "companion"), "serve", "--host", "127.0.0.1",
         "--port", str(s.port), "--db", str(db)],
        stdout=out, stderr=subprocess.STDOUT, env=s.env, start_new_session=True, cwd=str(ROOT))
    out.close()
    while True:
        if s.proc.poll() is not None:
            raise RuntimeError(s.log.read_text()[-2000:])
        try:
            get(s.port, "/api/games/current")
            return time.perf_counter() - t0, s
        except OSError:
            time.sleep(0.002)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--counts", default="0,100,1000")
    ap.add_argument("--core", type=int, default=0)
    args = ap.parse_args()
    others = set(range(os.cpu_count() or 1)) - {args.core}
    if others:
        os.sched_setaffinity(0, others)
    counts = [int(c) for c in args.counts.split(",")]
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}; "
          f"{args.runs} starts each, server pinned to core {args.core}")
    print(f"{'games':>6} {'events':>8} {'db MB':>6} {'start median':>13} {'min':>7} {'worker RSS':>11} "
          f"{'master+worker PSS':>18} {'RSS after opening one':>22}")
    base = None
    with tempfile.TemporaryDirectory() as d:
        for n in counts:
            db = Path(d) / f"history-{n}.sqlite3"
            made = write_games(str(db), n, seed=n) if n else []
            if not n:
                from companion.db import Store
                st = Store(str(db))
                st.conn
                st.close()
            events = sum(m["events"] for m in made)
            times, rss, pss, after = [], [], [], []
            for run in range(args.runs):
                t, s = start(db, args.core)
                try:
                    times.append(t)
                    w = s.worker_pid()
                    m, wk = smaps(s.proc.pid), smaps(w)
                    rss.append(wk["Rss"])
                    pss.append(m["Pss"] + wk["Pss"])
                    if made:
                        gid = made[len(made) // 2]["id"]
                        assert get(s.port, f"/api/games/{gid}") == 200
                        assert get(s.port, f"/api/games/{gid}/record") == 200
                    after.append(smaps(w)["Rss"])
                finally:
                    s.kill()
            med = statistics.median(times)
            base = base or (med, statistics.median(rss))
            print(f"{n:>6} {events:>8} {db.stat().st_size / 1e6:>6.1f} {med * 1000:>10.0f} ms {min(times) * 1000:>4.0f} ms "
                  f"{statistics.median(rss):>8.1f} MB {statistics.median(pss):>15.1f} MB {statistics.median(after):>19.1f} MB"
                  f"   ({(med / base[0] - 1) * 100:+.0f}% time, {statistics.median(rss) - base[1]:+.1f} MB RSS vs 0 games)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
