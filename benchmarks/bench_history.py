"""What old games cost the server: start-up time and memory with 0, 1,000 and 3,000 finished games. Prints figures.

    .venv/bin/python benchmarks/bench_history.py [--runs 7] [--counts 0,1000,3000] [--core 0]

Games are played by the real rules engine and their logs written straight into SQLite with the real
Store (tests/history_games.py), with the summary row the table writes when a game ends. Start-up is
`companion serve` (pinned to one core) from launch to its first answered request, polled every 2 ms;
memory is the server's RSS (and PSS) right after that first answer, and again after one old game's
view and record were opened. CPU is the seconds the server had used by then: on a busy machine it
moves far less than the wall clock. Each server is stopped cleanly (SIGTERM), as systemd stops it,
and each database is started and stopped once before the timed runs (the first start after
write_games has no note of a clean stop, so it reads the whole file, as after a crash). The runs
interleave the database sizes, so a change in the machine's load falls on all of them alike.
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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    ap.add_argument("--counts", default="0,1000,3000")
    ap.add_argument("--core", type=int, default=0)
    args = ap.parse_args()
    others = set(range(os.cpu_count() or 1)) - {args.core}
    if others:
        os.sched_setaffinity(0, others)
    counts = [int(c) for c in args.counts.split(",")]
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}; "
          f"{args.runs} starts each, server pinned to core {args.core}")
    print(f"{'games':>6} {'events':>8} {'db MB':>6} {'start median':>13} {'min':>7} {'CPU median':>11} "
          f"{'RSS':>11} {'PSS':>18} {'RSS after opening one':>22}")
    with tempfile.TemporaryDirectory() as d:
        dbs, made = {}, {}
        for n in counts:
            dbs[n] = Path(d) / f"history-{n}.sqlite3"
            made[n] = write_games(str(dbs[n]), n, seed=n) if n else []
            if not n:
                from companion.store.db import Store
                st = Store(str(dbs[n]))
                st.conn
                st.close()
        for n in counts:   # the first start reads the whole file (no note of a clean stop yet)
            _, s = start(dbs[n], args.core)
            s.stop()
        figures = {n: {"t": [], "cpu": [], "rss": [], "pss": [], "after": []} for n in counts}
        for run in range(args.runs):
            for n in counts:
                t, s = start(dbs[n], args.core)
                f = figures[n]
                try:
                    w = s.proc.pid
                    f["t"].append(t)
                    f["cpu"].append(cpu_seconds(w))
                    wk = smaps(w)
                    f["rss"].append(wk["Rss"])
                    f["pss"].append(wk["Pss"])
                    if made[n]:
                        gid = made[n][len(made[n]) // 2]["id"]
                        assert get(s.port, f"/api/games/{gid}") == 200
                        assert get(s.port, f"/api/games/{gid}/record") == 200
                    f["after"].append(smaps(w)["Rss"])
                finally:
                    s.stop()
        # The start-up work itself, in this process: open the store, list the games, replay the current one.
        from companion.store.db import Store
        from companion.live.hub import Hub
        from companion.table import Table
        for n in counts:
            took = []
            for _ in range(21):
                t0 = time.process_time()
                store = Store(str(dbs[n]))
                Table(store, Hub()).load()
                took.append(time.process_time() - t0)
                store.close()
            figures[n]["load"] = took
        med = {n: {k: statistics.median(v) for k, v in figures[n].items()} for n in counts}
        base = med[counts[0]]
        for n in counts:
            m = med[n]
            events = sum(x["events"] for x in made[n])
            print(f"{n:>6} {events:>8} {dbs[n].stat().st_size / 1e6:>6.1f} {m['t'] * 1000:>10.0f} ms "
                  f"{min(figures[n]['t']) * 1000:>4.0f} ms {m['cpu'] * 1000:>8.0f} ms {m['rss']:>8.1f} MB "
                  f"{m['pss']:>15.1f} MB {m['after']:>19.1f} MB   Table.load() {m['load'] * 1000:.2f} ms CPU"
                  f"   ({(m['t'] / base['t'] - 1) * 100:+.0f}% time, "
                  f"{(m['cpu'] / base['cpu'] - 1) * 100:+.0f}% CPU, {m['rss'] - base['rss']:+.1f} MB RSS vs {counts[0]} games)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
