"""Phones' request latency while the Pi thinks, beside the same without it (issue 32: "it never slows the table").

    .venv/bin/python benchmarks/bench_pi_seat.py [--requests 400] [--rounds 3] [--think-ms 300] [--pace-ms 20] [--core 0]

Two `companion serve`s, one after the other, the Pi thinking in its own process (the default) and on a thread of the
server's (COMPANION_BOT_PROCESS=0), each pinned to --core with taskset (this script runs on the other cores), hold:
- the people's game: two phones play it through the API, each request timed (the view, and each bid or pass);
- the Pi's game: one person and three Pi seats (COMPANION_BOT_DELAY=0); a driver answers the person's turns at
  once, so the Pi is thinking nearly all the time. Its players first spend --think-ms of CPU in pure Python per
  decision (benchmarks/pi_think/sitecustomize.py: the budget the strongest level may use), then decide as it does.
Rounds alternate: the people's game alone ("without the Pi"), then beside the Pi's game ("with the Pi thinking").
Prints per round and over all rounds the median, p90 and p99 in ms, and the Pi's decisions made meanwhile.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer, Phone, choose, create_game  # noqa: E402



class Conn:
    """A phone's keep-alive HTTP connection: each request timed from send to the last byte of the answer."""

    def __init__(self, phone: Phone):
        self.phone = phone
        self.conn = http.client.HTTPConnection("127.0.0.1", phone.server.port, timeout=30)
        self.headers = {"Content-Type": "application/json", "Origin": phone.server.origin,
                        "Cookie": phone.cookie_header()}

    def call(self, method: str, path: str, body=None) -> tuple[float, int, dict]:
        t0 = time.perf_counter()
        self.conn.request(method, path, None if body is None else json.dumps(body), self.headers)
        r = self.conn.getresponse()
        data = r.read()
        return (time.perf_counter() - t0) * 1000, r.status, json.loads(data)


def people_game(server) -> tuple[str, dict]:
    phones = {c: Phone(server) for c in ("blue", "red")}
    gid = create_game(phones["blue"], ["blue", "red"], pace="timer")
    for c, p in phones.items():
        assert p.post(f"/api/games/{gid}/seats/{c}", {"name": f"P-{c}"}).status == 200
    r = phones["blue"].post(f"/api/games/{gid}/start")
    assert r.status == 200, r
    return gid, {c: Conn(p) for c, p in phones.items()}


def measure(server, n: int, rng: random.Random, pace: float) -> list[float]:
    """n requests by the people's phones: a view, then the move of the player to act, and so on; `pace` seconds
    between two (phones far quicker than people at a table, yet not a flood that leaves the server no idle moment)."""
    gid, conns = people_game(server)
    times = []
    while len(times) < n:
        time.sleep(pace)
        ms, status, view = conns["blue"].call("GET", f"/api/games/{gid}")
        times.append(ms)
        if view["phase"] != "playing":
            gid, conns = people_game(server)
            continue
        me = conns[view["to_act"]]
        _, _, mine = me.call("GET", f"/api/games/{gid}")
        time.sleep(pace)
        ms, status, _ = me.call("POST", f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.3), expect_seq=mine["seq"]))
        assert status == 200, status
        times.append(ms)
    return times


class PiGame(threading.Thread):
    """One person and three Pi seats; the person answers at once, so the Pi thinks nearly all the time."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.errors = 0
        self.server = server
        self.stop = threading.Event()
        self.games: list[str] = []

    def new_game(self):
        host = Phone(self.server)
        gid = create_game(host, ["blue", "red", "white", "gray"], pace="timer")
        assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Solo"}).status == 200
        for c in ("red", "white", "gray"):
            assert host.post(f"/api/games/{gid}/seats/{c}/pi", {"level": "strong"}).status == 200
        assert host.post(f"/api/games/{gid}/start").status == 200
        self.games.append(gid)
        return gid, host, host.ws(gid)

    def run(self):
        rng = random.Random(1)
        gid, host, sock = self.new_game()
        conn = Conn(host)
        view = host.view(gid)
        while not self.stop.is_set():
            try:
                view = self.step(gid, host, sock, conn, view, rng)
            except (OSError, http.client.HTTPException):
                self.errors += 1   # a keep-alive connection the server closed: a new one
                conn = Conn(host)
                view = host.view(gid)
            if view is None:
                sock.close()
                gid, host, sock = self.new_game()
                conn = Conn(host)
                view = host.view(gid)
        sock.close()

    def step(self, gid, host, sock, conn, view, rng):
        """One move of the person, or a wait for the Pi's; None once the game is over."""
        if view["phase"] != "playing":
            return None
        if view["to_act"] == "blue":
            _, _, view = conn.call("GET", f"/api/games/{gid}")
            if view["to_act"] == "blue" and view["phase"] == "playing":
                _, _, view = conn.call("POST", f"/api/games/{gid}/actions",
                                       dict(choose(view, rng, 0.3), expect_seq=view["seq"]))
            return view
        try:
            return sock.wait_seq(view["seq"] + 1, timeout=1)
        except AssertionError:
            return view


def pi_decisions(server, games: list[str]) -> int:
    conn = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True, timeout=10)
    try:
        marks = ",".join("?" * len(games))
        return conn.execute(f"SELECT count(*) FROM events WHERE kind = 'action' AND device LIKE 'pi:%' "
                            f"AND game IN ({marks})", games).fetchone()[0]
    finally:
        conn.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def line(label, xs):
    return (f"{label:<22} n={len(xs):<5} median {statistics.median(xs):6.2f} ms   p90 {pct(xs, 90):6.2f} ms   "
            f"p99 {pct(xs, 99):6.2f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--think-ms", type=float, default=300.0)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--pace-ms", type=float, default=20.0, help="wait between two of the phones' requests")
    args = ap.parse_args()
    others = set(os.sched_getaffinity(0)) - {args.core}
    if others:
        os.sched_setaffinity(0, others)
    print(f"server on core {args.core}, clients on {sorted(others) or 'the same core'}; "
          f"the Pi's players think {args.think_ms:.0f} ms of CPU per decision")
    for how, process in (("in its own process", "1"), ("on a thread", "0")):
        print(f"== the Pi thinking {how} (COMPANION_BOT_PROCESS={process})")
        run(args, process)
    return 0


def run(args, process: str) -> None:
    env = {"COMPANION_RATE_LIMIT": "100000", "COMPANION_WRITE_RATE_LIMIT": "100000", "COMPANION_LOBBY_LIMIT": "100000",
           "COMPANION_STARTED_LIMIT": "100000",
           "COMPANION_BOT_DELAY": "0", "COMPANION_BOT_PROCESS": process, "BENCH_THINK_MS": str(args.think_ms),
           # the players' added thinking, and this tree's companion (a worktree's, beside the installed one)
           "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks" / "pi_think"), str(ROOT)])}
    rng = random.Random(7)
    without, beside = [], []
    with tempfile.TemporaryDirectory() as d:
        server = LiveServer(Path(d) / "bench.sqlite3", env=env, cmd_prefix=("taskset", "-c", str(args.core)))
        server.start()
        try:
            measure(server, 40, rng, 0)   # warm up
            for r in range(1, args.rounds + 1):
                alone = measure(server, args.requests, rng, args.pace_ms / 1000)
                pi = PiGame(server)
                pi.start()
                time.sleep(0.5)
                t0 = time.perf_counter()
                before = pi_decisions(server, pi.games)
                busy = measure(server, args.requests, rng, args.pace_ms / 1000)
                made = pi_decisions(server, pi.games) - before
                seconds = time.perf_counter() - t0
                pi.stop.set()
                pi.join(timeout=30)
                print(f"round {r}")
                print("  " + line("without the Pi", alone))
                print("  " + line("with the Pi thinking", busy) +
                      f"   ({made} Pi decisions in {seconds:.1f} s)")
                without += alone
                beside += busy
                time.sleep(max(1.0, args.think_ms / 1000 * 3))   # the Pi's last decisions finish
        finally:
            server.kill()
    print("all rounds")
    print("  " + line("without the Pi", without))
    print("  " + line("with the Pi thinking", beside))


if __name__ == "__main__":
    sys.exit(main())
