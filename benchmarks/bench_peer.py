"""The companion against a minimal Flask + flask-sock peer (benchmarks/peer_app.py, werkzeug's threaded
server): start-up, memory, and a bid's time to all 8 sockets. Prints figures; not a test.

    .venv/bin/pip install flask-sock      # the peer's one extra package (pyproject's "bench" extra)
    .venv/bin/python benchmarks/bench_peer.py [--bids 300] [--runs 7] [--rounds 3] [--core 0] [--quota 10] [--durable-peer]
        [--socket] (the companion's bids over the phone's live socket, as its page sends them)
        [--threaded-listeners] (the older listeners: a thread per socket parsing every view)

Both servers run pinned to CORE; with --quota P each also runs in a cgroup of its own allowed P% of one
core (cgroup v2, or v1's cpu controller; as root). Start-up is launch to the first answered request
(the companion restarting on its database; both from compiled bytecode), polled every 2 ms, the runs of
the two servers interleaved; its CPU is the server's own CPU time by then
(utime + stime, 10 ms ticks). Memory is the server's PSS with 8 sockets
open (the companion: one game being played, 4 seated phones and 4 watchers). A bid is timed from its
POST (with --socket: its message on the phone's live socket) to its view on all 8 sockets; each round runs BIDS bids on a fresh server of each kind, the two
kinds taking turns to go first. CPU per bid is the server's own CPU time (every thread, user and
system) over the bids, divided by their count: on a busy, shared machine the steadiest figure. The last line
divides each round's median and p99 by those of the peer's round beside it: the machine's speed drifting within a
run moves both of a pair alike.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))

import simple_websocket  # noqa: E402
from ws_listen import Listeners  # noqa: E402

from bench_server import Poster, cpu_seconds, pct, smaps  # noqa: E402
from server_helpers import (COMPANION, LiveServer, Phone, Socket, choose, create_game, free_port,  # noqa: E402
                            seat_and_start)

COLORS = ["blue", "red", "white", "gray"]


class Cgroup:
    """A cgroup allowed `percent` of one core; `prefix` runs a command inside it."""

    def __init__(self, name: str, percent: float):
        v2 = Path("/sys/fs/cgroup/cgroup.controllers").exists()
        self.path = Path("/sys/fs/cgroup" if v2 else "/sys/fs/cgroup/cpu") / name
        self.path.mkdir(exist_ok=True)
        if v2:
            (self.path / "cpu.max").write_text(f"{int(percent * 1000)} 100000")
        else:
            (self.path / "cpu.cfs_period_us").write_text("100000")
            (self.path / "cpu.cfs_quota_us").write_text(str(int(percent * 1000)))

    @property
    def prefix(self) -> tuple:
        return ("sh", "-c", f'echo $$ > {self.path}/cgroup.procs && exec "$@"', "sh")

    def remove(self) -> None:
        try:
            self.path.rmdir()
        except OSError:
            pass


class _Listener:
    capture = False
    seen: list = []


def answered(port: int, path: str = "/api/games/current") -> bool:
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", path)
        c.getresponse().read()
        c.close()
        return True
    except OSError:
        return False


def launch(cmd: list, prefix: tuple, log: Path) -> tuple[subprocess.Popen, float, int]:
    port = int(cmd[-1]) if cmd[-1].isdigit() else None
    t0 = time.perf_counter()
    with open(log, "ab") as out:
        proc = subprocess.Popen([*prefix, *cmd], stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                cwd=str(ROOT))
    while not answered(port):
        if proc.poll() is not None:
            raise RuntimeError(log.read_text()[-2000:])
        time.sleep(0.002)
    return proc, time.perf_counter() - t0, port


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()


DURABLE_PEER: list = []   # the peer's SQLite file, with --durable-peer
THREADED: list = []       # with --threaded-listeners: a thread per socket parsing each view (the older instrument)
OVER_SOCKET: list = []    # with --socket: the companion's bids go over the phone's live socket, not a POST


def peer_cmd(port: int) -> list:
    return [sys.executable, str(HERE / "peer_app.py"), *(["--db", *DURABLE_PEER] if DURABLE_PEER else []), str(port)]


def companion_cmd(db: Path, port: int) -> list:
    return [str(COMPANION), "serve", "--host", "127.0.0.1", "--db", str(db), "--port", str(port)]


def stop_cleanly(proc: subprocess.Popen) -> None:
    """SIGTERM, as systemd stops the service: the next start is a clean one."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        stop(proc)
    except ProcessLookupError:
        pass


def startups(prefix: tuple, runs: int, folder: Path) -> tuple[dict, dict, float]:
    """Launch to first answer, wall seconds and the server's own CPU seconds (steadier on a busy machine).

    The companion restarts on one database, as a Pi does at each power-on: the first start, which
    creates it, is not timed, and each run is stopped with SIGTERM as systemd does."""
    times = {"companion": [], "peer": []}
    cpus = {"companion": [], "peer": []}
    db = folder / "start.sqlite3"
    proc, first, _ = launch(companion_cmd(db, free_port()), prefix, folder / "companion.log")
    stop_cleanly(proc)
    for i in range(runs):
        for name in times:
            port = free_port()
            cmd = peer_cmd(port) if name == "peer" else companion_cmd(db, port)
            proc, took, _ = launch(cmd, prefix, folder / f"{name}.log")
            cpus[name].append(cpu_seconds(proc.pid))
            stop_cleanly(proc)
            times[name].append(took)
    return times, cpus, first


def with_bytecode() -> None:
    """Both servers start from compiled bytecode, as pip installs them (a shell's PYTHONDONTWRITEBYTECODE
    would otherwise make the companion compile its own modules at every start, and not the peer's)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "companion"), str(HERE / "peer_app.py")],
                   check=True, stdout=subprocess.DEVNULL)


class ThreadedListeners:
    """The older instrument behind Listeners' calls (--threaded-listeners): a tests/server_helpers.Socket per socket,
    a thread each that parses every view as JSON (benchmarks/ws_listen.py says why it was replaced)."""

    def __init__(self):
        self.socks: list = []

    def add(self, port: int, path: str, headers: dict) -> int:
        client = simple_websocket.Client.connect(f"ws://127.0.0.1:{port}{path}", headers=headers)
        self.socks.append(Socket(client, _Listener()))
        return len(self.socks) - 1

    def send(self, i: int, text: str) -> None:
        self.socks[i].client.send(text)

    def arrival(self, i: int, seq: int, timeout: float = 10.0) -> float:
        return self.socks[i].arrival(seq, timeout)

    def ack(self, i: int, aid: str, timeout: float = 10.0) -> dict:
        return self.socks[i].ack(aid, timeout)

    def last(self, i: int):
        return self.socks[i].last

    def close(self) -> None:
        for s in self.socks:
            s.close()


def make_listeners():
    return ThreadedListeners() if THREADED else Listeners()


def peer_bids(prefix: tuple, bids: int, folder: Path) -> tuple[list, dict]:
    port = free_port()
    proc, _, _ = launch(peer_cmd(port), prefix, folder / "peer.log")
    ears = make_listeners()
    try:
        socks = [ears.add(port, "/live", {}) for _ in range(8)]
        for i in socks:
            ears.arrival(i, 0)
        memory = smaps(proc.pid)
        cpu = cpu_seconds(proc.pid)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        lat = []
        for _ in range(bids):
            t0 = time.perf_counter()
            conn.request("POST", "/api/bid", "{}", {"Content-Type": "application/json"})
            r = conn.getresponse()
            seq = int(json.loads(r.read())["seq"])
            lat.append(max(ears.arrival(i, seq) for i in socks) - t0)
        cpu = cpu_seconds(proc.pid) - cpu
        return lat, memory, cpu / bids
    finally:
        ears.close()
        stop(proc)


def companion_bids(prefix: tuple, bids: int, folder: Path) -> tuple[list, dict]:
    server = LiveServer(folder / "bids.sqlite3", env={"COMPANION_RATE_LIMIT": "1000"}, cmd_prefix=prefix)
    server.start()
    rng = random.Random(1)
    lat, memory, cpu = [], None, 0.0
    try:
        while len(lat) < bids:
            players = {c: Phone(server) for c in COLORS}
            viewers = [Phone(server) for _ in range(4)]
            gid = create_game(players["blue"], COLORS, mode="expert", seed=rng.randrange(10 ** 6))
            seat_and_start(gid, players["blue"], players)
            ears = make_listeners()
            path = f"/api/games/{gid}/live"
            socks = {c: ears.add(server.port, path, {"Cookie": p.cookie_header(), "Origin": server.origin})
                     for c, p in players.items()}
            listeners = list(socks.values()) + [
                ears.add(server.port, path, {"Cookie": v.cookie_header(), "Origin": server.origin}) for v in viewers]
            posters = {c: Poster(p) for c, p in players.items()}
            seq = players["blue"].view(gid)["seq"]
            for i in listeners:
                ears.arrival(i, seq)
            if memory is None:
                memory = smaps(server.proc.pid)
            cpu -= cpu_seconds(server.proc.pid)
            while len(lat) < bids:
                view = ears.last(socks["blue"])
                if view["phase"] != "playing":
                    break
                mine = ears.last(socks[view["to_act"]])
                move = dict(choose(mine, rng), expect_seq=mine["seq"])
                if OVER_SOCKET:   # the phone's page: the bid on its open live socket, answered there
                    aid = f"b{len(lat)}"
                    t0 = time.perf_counter()
                    ears.send(socks[view["to_act"]], json.dumps({"id": aid, "act": move}))
                    answer = ears.ack(socks[view["to_act"]], aid, timeout=60)["body"]
                else:
                    t0 = time.perf_counter()
                    answer = posters[view["to_act"]].post(f"/api/games/{gid}/actions", move)
                lat.append(max(ears.arrival(i, answer["seq"], timeout=60) for i in listeners) - t0)
            cpu += cpu_seconds(server.proc.pid)
            ears.close()
            for p in posters.values():
                p.conn.close()
        return lat, memory, cpu / bids
    finally:
        server.kill()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=300)
    ap.add_argument("--runs", type=int, default=7, help="start-ups of each server")
    ap.add_argument("--rounds", type=int, default=1, help="bid rounds of each server, taking turns")
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--quota", type=float, default=None, help="percent of one core each server may use")
    ap.add_argument("--durable-peer", action="store_true",
                    help="the peer commits each bid to SQLite (synchronous=FULL) before telling, as the companion")
    ap.add_argument("--socket", action="store_true",
                    help="the companion's phones send each bid over their open live socket (web/live_acts.py), as "
                         "its phone page does, instead of a POST (the peer unchanged)")
    ap.add_argument("--threaded-listeners", action="store_true",
                    help="the older instrument: a thread per listening socket parsing every view as JSON, whose own "
                         "work weighs on the stamps (benchmarks/ws_listen.py says why it was replaced)")
    args = ap.parse_args()
    if args.threaded_listeners:
        THREADED.append(True)
    if args.socket:
        OVER_SOCKET.append(True)
    with_bytecode()
    others = set(range(os.cpu_count() or 1)) - {args.core}
    if others:
        os.sched_setaffinity(0, others)
    group = Cgroup(f"companion-bench-{os.getpid()}", args.quota) if args.quota else None
    prefix = (*(group.prefix if group else ()), "taskset", "-c", str(args.core))
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    rounds = {"companion": [], "peer": []}
    bidders = {"companion": companion_bids, "peer": peer_bids}
    try:
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d)
            if args.durable_peer:
                DURABLE_PEER.append(str(folder / "peer.sqlite3"))
            times, cpus, first = startups(prefix, args.runs, folder)
            for r in range(args.rounds):
                for name in (("companion", "peer") if r % 2 == 0 else ("peer", "companion")):
                    rounds[name].append(bidders[name](prefix, args.bids, folder))
    finally:
        if group:
            group.remove()
    load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"both servers on core {args.core}" + (f", each held to {args.quota:g}% of a core" if args.quota else "")
          + (", the peer durable (SQLite, synchronous=FULL)" if args.durable_peer else "")
          + (", the companion's bids over its live sockets" if args.socket else "")
          + f"; load average before: {load}, after: {load_after}; {args.runs} start-ups and {args.rounds} "
          f"round(s) of {args.bids} bids each")
    print(f"{'':>10} {'start-up min/median s':>22} {'CPU s':>6} {'PSS MB':>7} {'bid->8 sockets median ms':>25} "
          f"{'p99 ms (each round)':>24} {'CPU/bid ms':>11}")
    summary = {}
    for name in ("companion", "peer"):
        lats = [lat for lat, _, _ in rounds[name]]
        p99s = [pct(lat, 99) * 1000 for lat in lats]
        pss = statistics.median(m["Pss"] for _, m, _ in rounds[name])
        cpu = statistics.median(c for _, _, c in rounds[name]) * 1000
        summary[name] = (statistics.median(times[name]), pss, statistics.median(p99s), cpu, statistics.median(cpus[name]))
        print(f"{name:>10} {min(times[name]):>10.3f} / {statistics.median(times[name]):<10.3f} "
              f"{statistics.median(cpus[name]):>6.2f} {pss:>7.1f} "
              f"{statistics.median(statistics.median(lat) for lat in lats) * 1000:>25.2f} "
              f"{' '.join(f'{p:.1f}' for p in p99s):>24} {cpu:>11.2f}")
    print(f"the companion's very first start (it creates the database, once in a Pi's life): {first:.3f} s")
    c, p = summary["companion"], summary["peer"]
    print(f"ratios (companion / peer, medians): start-up {c[0] / p[0]:.2f}x (its CPU {c[4] / p[4]:.2f}x; target <= 1.5x), "
          f"PSS {c[1] / p[1]:.2f}x (target <= 1.2x), bid p99 {c[2] / p[2]:.2f}x (target <= 1.1x), "
          f"CPU per bid {c[3] / p[3]:.2f}x")
    # Each round of the companion ran right beside one of the peer's (taking turns): their ratio is the least
    # moved by the machine's speed drifting over the run, which moves both servers' tails alike.
    medians, p99s = [], []
    for (mine, _, _), (theirs, _, _) in zip(rounds["companion"], rounds["peer"]):
        medians.append(pct(mine, 50) / pct(theirs, 50))
        p99s.append(pct(mine, 99) / pct(theirs, 99))
    print(f"round by round (companion / peer in the same pair of rounds, the median over {len(p99s)} pairs): "
          f"bid median {statistics.median(medians):.2f}x, p99 {statistics.median(p99s):.2f}x "
          f"(targets <= 1.0x and <= 1.1x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
