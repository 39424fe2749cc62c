"""Instructions per bid in the companion, counted by valgrind's callgrind: the same on a quiet or a loaded machine,
so a change of a few percent shows where bench_peer.py's timings cannot. Prints figures; not a test.

    .venv/bin/python benchmarks/callgrind_bid.py [--bids 150]     # needs valgrind (apt install valgrind)
    .venv/bin/python benchmarks/callgrind_bid.py --peer [--bids 150]   # the durable peer's bids, counted the same way
    .venv/bin/python benchmarks/callgrind_bid.py --socket [--bids 150]   # the companion's bids over the live socket

The real server runs under callgrind with counting off; bench_peer.py's bids are played (seated phones, 4 watchers,
a bid told to 8 sockets) and only they are counted (games are set up with counting off), every thread of the
server, user space only (the kernel's work, the fsyncs' waits, are not instructions here). The
file it leaves (--keep) opens in callgrind_annotate or KCachegrind.
"""
from __future__ import annotations

import argparse
import functools
import glob
import http.client
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_peer  # noqa: E402


def total_ir(path: str) -> int:
    """The file's instruction total (0 for a file callgrind only began)."""
    found = [int(line.split()[1]) for line in Path(path).read_text(errors="replace").splitlines()
             if line.startswith(("summary:", "totals:"))]
    return max(found, default=0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bids", type=int, default=150)
    ap.add_argument("--keep", help="copy callgrind's file here")
    ap.add_argument("--socket", action="store_true",
                    help="the companion's bids over the phone's live socket, as its page sends them (bench_peer --socket)")
    ap.add_argument("--peer", action="store_true",
                    help="count bench_peer.py's durable peer instead (each bid committed to SQLite, synchronous=FULL)")
    args = ap.parse_args()
    bench_peer.with_bytecode()
    if args.socket:
        bench_peer.OVER_SOCKET.append(True)
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        out = folder / "callgrind.out"
        prefix = ("valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}")
        counting = {"on": False}

        def toggle(pid: int) -> float:
            """Called around each game's bids (bench_peer counts CPU there): counting on, then off."""
            counting["on"] = not counting["on"]
            subprocess.run(["callgrind_control", "-i", "on" if counting["on"] else "off", str(pid)],
                           check=True, stdout=subprocess.DEVNULL)
            if args.peer and not counting["on"]:   # the peer is stopped with SIGKILL: its counts written first
                subprocess.run(["callgrind_control", "-d", str(pid)], check=True, stdout=subprocess.DEVNULL)
            return 0.0

        real_kill = bench_peer.LiveServer.kill

        def kill(server):
            if server.proc is not None:
                subprocess.run(["callgrind_control", "-d", str(server.proc.pid)], check=True, stdout=subprocess.DEVNULL)
                time.sleep(1.0)
            real_kill(server)

        real_post = bench_peer.Poster.post

        def post(poster, path, body):
            """Once more on a new connection: under valgrind a set-up outlasts the kept-alive one's 5 s."""
            try:
                return real_post(poster, path, body)
            except (http.client.RemoteDisconnected, ConnectionError):
                poster.conn.close()
                poster.conn = http.client.HTTPConnection("127.0.0.1", poster.phone.server.port)
                return real_post(poster, path, body)

        bench_peer.Poster.post = post
        bench_peer.cpu_seconds = toggle
        bench_peer.LiveServer.start = functools.partialmethod(bench_peer.LiveServer.start, timeout=600)
        bench_peer.LiveServer.kill = kill
        t0 = time.perf_counter()
        if args.peer:
            bench_peer.DURABLE_PEER.append(str(folder / "peer.sqlite3"))
            lat, _, _ = bench_peer.peer_bids(prefix, args.bids, folder)
        else:
            lat, _, _ = bench_peer.companion_bids(prefix, args.bids, folder)
        files = sorted(glob.glob(f"{out}*"), key=os.path.getmtime)
        ir = sum(total_ir(f) for f in files)
        if not ir:
            raise RuntimeError(f"callgrind counted nothing: {files}")
        if args.keep:
            subprocess.run(["cp", max(files, key=total_ir), args.keep], check=True)
    who = "the durable peer" if args.peer else "the companion" + (" (bids over the live socket)" if args.socket else "")
    print(f"{who}: {ir / args.bids / 1e6:.3f} M instructions per bid (user space, every thread; {args.bids} bids, "
          f"{time.perf_counter() - t0:.0f} s under valgrind)")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raise SystemExit(main())
