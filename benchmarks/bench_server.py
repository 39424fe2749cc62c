"""Server figures: bid-to-8-sockets latency, resident memory, startup time. Prints figures; not a test.

    .venv/bin/python benchmarks/bench_server.py [--bids 600] [--core 0]

The server runs as `taskset -c CORE .venv/bin/companion serve ...` with COMPANION_RATE_LIMIT=1000;
this script pins itself to the other core so the clients do not steal the server's time.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


from server_helpers import LiveServer, Phone, create_game, seat_and_start  # noqa: E402

COLORS = ["blue", "red", "white", "gray"]


class Poster:
    """A phone's keep-alive HTTP connection for actions."""

    def __init__(self, phone: Phone):
        self.phone = phone
        self.conn = http.client.HTTPConnection("127.0.0.1", phone.server.port)
        self.headers = {"Content-Type": "application/json", "Origin": phone.server.origin,
                        "Cookie": phone.cookie_header()}

    def post(self, path: str, body: dict) -> dict:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"{r.status} {data[:200]!r}")
        return json.loads(data)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def smaps(pid: int) -> dict:
    out = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts[0] in ("Rss:", "Pss:", "Private_Clean:", "Private_Dirty:"):
            out[parts[0][:-1]] = int(parts[1]) / 1024
    return out


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def startup(core: int, runs: int = 5) -> list[float]:
    times = []
    for i in range(runs):
        with tempfile.TemporaryDirectory() as d:
            s = LiveServer(Path(d) / "startup.sqlite3", cmd_prefix=("taskset", "-c", str(core)))
            try:
                times.append(s.start())
            finally:
                s.kill()
    return times


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=600)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", default=None, help="where the SQLite file goes (default: a temporary folder in /tmp);"
                    " /dev/shm shows the server without the disk's fsync")
    args = ap.parse_args()
    if shutil.which("taskset") is None:
        print("taskset is missing (util-linux)")
        return 1
    others = set(range(os.cpu_count() or 1)) - {args.core}
    if others:
        os.sched_setaffinity(0, others)
    rng = random.Random(args.seed)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        server = LiveServer(Path(d) / "bench.sqlite3", env={"COMPANION_RATE_LIMIT": "1000"},
                            cmd_prefix=("taskset", "-c", str(args.core)))
        server.start()
        try:
            bid_lat, pass_lat, post_rtt = [], [], []
            memory = None
            games = 0
            worker = server.worker_pid()
            cpu0, actions = cpu_seconds(worker), 0
            while len(bid_lat) < args.bids:
                players = {c: Phone(server) for c in COLORS}
                viewers = [Phone(server) for _ in range(4)]
                gid = create_game(players["blue"], COLORS, mode="expert", seed=rng.randrange(10**6))
                seat_and_start(gid, players["blue"], players)
                games += 1
                socks = {c: p.ws(gid) for c, p in players.items()}
                watch = [v.ws(gid) for v in viewers]
                listeners = list(socks.values()) + watch
                posters = {c: Poster(p) for c, p in players.items()}
                seq = players["blue"].view(gid)["seq"]
                for ls in listeners:
                    ls.arrival(seq)
                while len(bid_lat) < args.bids:
                    view = socks["blue"].last
                    if view["phase"] != "playing":
                        break
                    color = view["to_act"]
                    mine = socks[color].last
                    legal = mine["legal"]
                    if legal["pass"] and (not legal["neighborhoods"] or rng.random() < 0.3):
                        move = {"pass": True}
                    else:
                        nb = rng.choice(sorted(legal["neighborhoods"]))
                        move = {"bid": nb, "value": rng.choice(legal["neighborhoods"][nb])}
                    move["expect_seq"] = mine["seq"]
                    t0 = time.perf_counter()
                    answer = posters[color].post(f"/api/games/{gid}/actions", move)
                    t1 = time.perf_counter()
                    done = max(ls.arrival(answer["seq"]) for ls in listeners)
                    (pass_lat if move.get("pass") else bid_lat).append(done - t0)
                    post_rtt.append(t1 - t0)
                    actions += 1
                if memory is None:
                    memory = smaps(server.proc.pid)
                for ls in listeners:
                    ls.close()
                for p in posters.values():
                    p.conn.close()
            cpu = cpu_seconds(worker) - cpu0
        finally:
            server.kill()

    ms = lambda xs, p: pct(xs, p) * 1000  # noqa: E731
    print(f"server pinned to core {args.core} (taskset), clients on {sorted(others) or 'the same core'}; "
          f"database in {args.dir or tempfile.gettempdir()}; load average before: {load}")
    print(f"bid POST -> all 8 sockets have the new view, {len(bid_lat)} bids in {games} games:")
    print(f"  median {statistics.median(bid_lat) * 1000:.2f} ms   p90 {ms(bid_lat, 90):.2f} ms   "
          f"p99 {ms(bid_lat, 99):.2f} ms   max {max(bid_lat) * 1000:.2f} ms")
    if pass_lat:
        print(f"pass POST -> 8 sockets ({len(pass_lat)} passes): median {statistics.median(pass_lat) * 1000:.2f} ms"
              f"   p99 {ms(pass_lat, 99):.2f} ms")
    print(f"POST round trip alone: median {statistics.median(post_rtt) * 1000:.2f} ms   p99 {ms(post_rtt, 99):.2f} ms")
    print(f"server CPU per action (whole run, setup and sockets included): {cpu / actions * 1000:.2f} ms"
          f" over {actions} actions")
    print(f"memory with one game and 8 sockets: RSS {memory['Rss']:.1f} MB, PSS {memory['Pss']:.1f} MB "
          f"(one process)")
    times = startup(args.core)
    print(f"startup (launch -> first answered request), {len(times)} runs: median {statistics.median(times):.3f} s, "
          f"max {max(times):.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
