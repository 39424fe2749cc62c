"""How long a waking request waits for its core while a busy process of lower priority runs there: the question
behind bench_peer.py's full-core p99, where the Pi's thinking process (judging every person's decision, 10 nice
steps down) shares the server's pinned core. Prints figures; not a test.

    python3 benchmarks/bench_wake.py [--pings 3000] [--runs 3] [--core 0]

A process pinned to CORE answers one byte on a socket (the server waiting in its loop); from another core the
bench sends a byte every half millisecond and times the answer. Beside the answering process, on its core: nothing,
a process spinning 10 nice steps down (as the Pi's thinking process runs), or one spinning at SCHED_IDLE (which a
waking process of any niceness preempts). The three take turns, RUNS times.
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time

SPIN = {
    "nothing": None,
    "nice 10": "os.nice(10)",
    "SCHED_IDLE": "os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))",
}


def pct(xs: list, p: float) -> float:
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def answering(core: int) -> tuple[socket.socket, int]:
    mine, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        mine.close()
        os.sched_setaffinity(0, {core})
        while True:
            data = theirs.recv(8)
            if not data:
                os._exit(0)
            theirs.send(data)
    theirs.close()
    return mine, pid


def run(mode: str, core: int, pings: int) -> list:
    sock, pid = answering(core)
    spinner = None
    if SPIN[mode]:
        spinner = subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{core}}})\n"
                                    f"{SPIN[mode]}\nwhile True: pass"])
    try:
        time.sleep(0.3)   # the spinner running
        lat = []
        for _ in range(pings):
            t = time.perf_counter()
            sock.send(b"x")
            sock.recv(8)
            lat.append((time.perf_counter() - t) * 1e6)
            time.sleep(0.0005)
        return sorted(lat)
    finally:
        if spinner:
            spinner.kill()
            spinner.wait()
        sock.close()
        os.waitpid(pid, 0)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pings", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--core", type=int, default=0)
    args = ap.parse_args()
    others = set(range(os.cpu_count() or 1)) - {args.core}
    if not others:
        print("needs two cores: the answering core and the caller's")
        return 1
    os.sched_setaffinity(0, others)
    print(f"answer to a byte, microseconds; the answering process on core {args.core}, {args.pings} pings a run")
    print(f"{'beside it':>12} {'median':>7} {'p90':>6} {'p99':>6} {'p99.9':>7}")
    for _ in range(args.runs):
        for mode in SPIN:
            lat = run(mode, args.core, args.pings)
            print(f"{mode:>12} {pct(lat, 50):>7.0f} {pct(lat, 90):>6.0f} {pct(lat, 99):>6.0f} {pct(lat, 99.9):>7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
