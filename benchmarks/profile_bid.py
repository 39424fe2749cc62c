"""Where a bid's time goes inside the companion, while bench_peer.py's bids are played on the real server
(`companion serve`; seated phones, 4 watchers, a bid told to 8 sockets). Prints figures; not a test.

    .venv/bin/pip install yappi py-spy flask-sock
    .venv/bin/python benchmarks/profile_bid.py [--bids 1500] [--core 0] [--top 25] [--socket]   # CPU, by yappi
    .venv/bin/python benchmarks/profile_bid.py --wall [--rate 1000] [--bids 1500]          # wall, by py-spy

CPU: yappi (CPU clock, every thread) profiles the server from its first answer to its SIGTERM; each stage is the CPU
inside the functions named below, per bid (game set-up included, about one game per 100 bids). Wall: py-spy
samples every thread of the running server and puts each sample in the innermost stage it was taken in (a
thread in an fsync counts: the disk's wait is wall time).
"""
from __future__ import annotations

import argparse
import collections
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_peer  # noqa: E402

# First match wins, tried from the innermost frame out: a sample belongs to the deepest stage it is in.
STAGES = [
    ("fsync: the log's COMMIT", ("_transaction (companion/store/db.py",)),
    ("fsync: the note", ("write (companion/store/db.py", "Note.write")),
    ("encode views (views.py)", ("companion/views.py",)),
    ("send to sockets (live/wsloop.py, hub.py)", ("companion/live/wsloop.py", "companion/live/hub.py")),
    ("the socket's action (web/live_acts.py)", ("companion/web/live_acts.py",)),
    ("check: the rules (game/)", ("companion/game/",)),
    ("LEDs, Pi seat", ("companion/pi/leds", "companion/pi_seat.py", "companion/table/pi_seats.py")),
    ("table: apply, bookkeeping (table/, store)", ("companion/table/", "companion/store/")),
    ("Flask, werkzeug (routing, request, JSON answer)", ("flask/", "werkzeug/", "companion/web/", "companion/app.py")),
    ("HTTP loop: h11 parse, environ, write (live/httploop.py, httpconn.py, dispatch.py, budget.py)",
     ("companion/live/httploop.py", "companion/live/httpconn.py", "companion/live/dispatch.py",
      "companion/live/budget.py", "h11/")),
    ("threads, selectors, other", ("",)),
]


def stage_of(stack: str) -> str:
    frames = stack.split(";")
    for frame in reversed(frames):
        for name, marks in STAGES[:-1]:
            if any(m in frame for m in marks):
                return name
    return STAGES[-1][0]


def summarize(raw: Path, bids: int, rate: int, top: int) -> None:
    by_stage: collections.Counter = collections.Counter()
    by_func: collections.Counter = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or "(idle)" in stack:
            continue
        n = int(count)
        frames = stack.split(";")
        if not any("companion" in f or "site-packages" in f for f in frames[1:]):
            continue
        total += n
        by_stage[stage_of(stack)] += n
        by_func[frames[-1]] += n
    ms = 1000 / rate / bids
    print(f"{total} samples at {rate} Hz over {bids} bids: {total * ms:.2f} ms of the server's threads per bid")
    print("\nper bid, by stage of the path (innermost stage of each sample):")
    for name, n in by_stage.most_common():
        print(f"  {n * ms:7.3f} ms  {100 * n / total:5.1f}%  {name}")
    print(f"\ntop {top} innermost frames (self time):")
    for name, n in by_func.most_common(top):
        print(f"  {n * ms:7.3f} ms  {100 * n / total:5.1f}%  {name}")


# CPU inside each of these, inclusive (yappi's ttot), per bid; nested ones are shown indented under their caller.
CPU_STAGES = [
    ("HTTP loop thread: accept, read, h11 parse, environ, write", ("Server._accept", "Server._on_event", "Server._finish_done")),
    ("  of it, h11 parse and the WSGI environ", ("Server._advance",)),
    ("  of it, the answer framed and written", ("Server._answer",)),
    ("a pool thread: the WSGI app (Flask and the app's hooks)", ("Dispatch._run",)),
    ("  the one path: Table.act", ("Table.act",)),
    ("    check: the rules' apply", ("apply",)),
    ("    append to SQLite (COMMIT, its fsync)", ("Store._transaction",)),
    ("    the note of the last action (fsync)", ("Note.write",)),
    ("    apply: Game.mutate", ("Game.mutate",)),
    ("    tell: Hub.publish (views encoded, frames sent)", ("Hub.publish",)),
    ("      encode every device's view (views.view_texts)", ("view_texts",)),
    ("      send to the sockets (LiveSocket.send_frame)", ("LiveSocket.send_frame",)),
    ("    LEDs, the Pi's seat", ("OnePath.show_leds",)),
    ("live loop thread: pings, reads, queued writes", ("LiveSocket._on_readable", "LiveSocket._on_writable", "LiveSocket._tick")),
]


def yappi_profile(args) -> None:
    """The server under yappi (CPU clock), stopped with SIGTERM so it writes its figures."""
    launcher = HERE / "yappi_serve.py"
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        out = folder / "stats.txt"
        real_kill, real_start = bench_peer.LiveServer.kill, bench_peer.LiveServer.start

        def start(server, *a, **k):
            took = real_start(server, *a, **k)
            os.kill(server.proc.pid, signal.SIGUSR1)   # the figures from here: start-up left out
            return took

        def kill(server):
            if server.proc is not None:
                os.killpg(server.proc.pid, signal.SIGTERM)
                server.proc.wait(timeout=60)
                server.proc = None
            real_kill(server)

        bench_peer.LiveServer.kill, bench_peer.LiveServer.start = kill, start
        os.environ["COMPANION_YAPPI_OUT"] = str(out)
        prefix = ("taskset", "-c", str(args.core), sys.executable, str(launcher))
        lat, _, cpu = bench_peer.companion_bids(prefix, args.bids, folder)
        print(f"load {os.getloadavg()[0]:.2f}; server CPU per bid under yappi (from /proc) {cpu * 1000:.2f} ms; "
              f"bid->8 sockets median {sorted(lat)[len(lat) // 2] * 1000:.2f} ms (slowed by the profiler)")
        if args.keep:
            Path(args.keep).write_text(out.read_text())
        summarize_cpu(out, args.bids, args.top)


def summarize_cpu(path: Path, bids: int, top: int) -> None:
    stats = {}
    for line in path.read_text().splitlines():
        name, ncall, ttot, tsub = line.rsplit("\t", 3)
        stats[name] = (int(ncall), float(ttot), float(tsub))
    per = 1000 / bids

    def inclusive(shorts: tuple) -> float:
        return sum(t for name, (_, t, _) in stats.items() if name.split(" ")[0] in shorts)

    print("\nCPU per bid by stage (inclusive; yappi's own overhead inflates every figure alike):")
    for label, funcs in CPU_STAGES:
        print(f"  {inclusive(funcs) * per:7.3f} ms  {label}")
    print(f"\ntop {top} functions by own CPU (tsub):")
    for name, (n, _, tsub) in sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"  {tsub * per:7.3f} ms  {n / bids:7.1f} calls/bid  {name}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=1500)
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--wall", action="store_true", help="py-spy's samples of every thread, waits included")
    ap.add_argument("--socket", action="store_true", help="the bids over the phones' live sockets (bench_peer --socket)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--raw", help="summarize this py-spy raw file instead of measuring")
    ap.add_argument("--stats", help="summarize this yappi file (from --keep) instead of measuring")
    ap.add_argument("--keep", help="also write py-spy's raw samples here")
    args = ap.parse_args()
    if args.socket:
        bench_peer.OVER_SOCKET.append(True)
    if args.stats:
        summarize_cpu(Path(args.stats), args.bids, args.top)
        return 0
    if args.raw:
        summarize(Path(args.raw), args.bids, args.rate, args.top)
        return 0
    bench_peer.with_bytecode()
    if not args.wall:
        yappi_profile(args)
        return 0
    spy = Path(sys.executable).with_name("py-spy")
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        raw = Path(args.keep) if args.keep else folder / "bids.raw"
        real_launch = bench_peer.LiveServer.start
        watcher: dict = {}

        def start(server, *a, **k):
            took = real_launch(server, *a, **k)
            cmd = [str(spy), "record", "--pid", str(server.proc.pid), "--rate", str(args.rate), "--format", "raw",
                   "--output", str(raw), "--threads", "--nonblocking"] + ["--idle"]
            watcher["spy"] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)   # py-spy attached
            return took

        bench_peer.LiveServer.start = start
        real_kill = bench_peer.LiveServer.kill

        def kill(server):
            spy_proc = watcher.pop("spy", None)
            if spy_proc is not None:
                spy_proc.send_signal(signal.SIGINT)
                spy_proc.wait(timeout=60)
            real_kill(server)

        bench_peer.LiveServer.kill = kill
        prefix = ("taskset", "-c", str(args.core))
        lat, _, cpu = bench_peer.companion_bids(prefix, args.bids, folder)
        print(f"load {os.getloadavg()[0]:.2f}; server CPU per bid (from /proc, whole process) {cpu * 1000:.2f} ms; "
              f"bid->8 sockets median {sorted(lat)[len(lat) // 2] * 1000:.2f} ms")
        summarize(raw, args.bids, args.rate, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
