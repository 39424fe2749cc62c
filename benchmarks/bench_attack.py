"""Four seated phones play while many addresses send slow requests (issue 22 item 2). Prints figures; not a test.

    .venv/bin/python benchmarks/bench_attack.py [--seconds 20] [--addresses 0,8,16] [--per-address 16]

For each attacker count, a fresh `companion serve` on 127.0.0.1; four phones (127.0.0.11-14, their own
cookies, seated) play random legal moves as fast as they can for SECONDS, each move counted once its
view has reached all four phones' sockets. The attackers (127.0.0.100 and up) each hold PER-ADDRESS
connections, half sending a header byte every half second, half a body byte ("Content-Length: 10000"),
reopened as soon as the server closes them. Figures: moves in the window, moves per second, median and
maximum time from a move's POST to its view on all four sockets, and the server's threads.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer, Phone, choose, create_game, seat_and_start  # noqa: E402

COLORS = ("blue", "red", "white", "gray")
FAST = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000"}


class Slow:
    """`per_address` slow connections from each of `addresses`, kept open (reopened when closed)."""

    def __init__(self, server: LiveServer, gid: str, addresses: list[str], per_address: int):
        self.server, self.gid = server, gid
        self.slots = [(a, i % 2, None) for a in addresses for i in range(per_address)]
        self.opened = multiprocessing.Value("i", 0)
        self.stop = multiprocessing.Event()
        # A process of its own: the attack must not take the phones' time in this one.
        self.process = multiprocessing.Process(target=self._run, daemon=True)

    def _connect(self, address: str, body: int) -> socket.socket:
        s = socket.socket()
        s.bind((address, 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", self.server.port))
        if body:
            s.sendall((f"POST /api/games/{self.gid}/actions HTTP/1.1\r\nHost: 127.0.0.1:{self.server.port}\r\n"
                       f"Origin: {self.server.origin}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: 10000\r\n\r\n{{").encode())
        else:
            s.sendall(b"GET /api/games/current HTTP/1.1\r\nX-Slow: ")
        s.setblocking(False)
        with self.opened.get_lock():
            self.opened.value += 1
        return s

    def _run(self) -> None:
        while not self.stop.is_set():
            for i, (address, body, s) in enumerate(self.slots):
                alive = s is not None
                if alive:
                    try:
                        s.send(b" " if body else b"a")
                        alive = s.recv(1, socket.MSG_PEEK) != b""
                    except BlockingIOError:
                        pass
                    except OSError:
                        alive = False
                if not alive:
                    if s is not None:
                        s.close()
                    try:
                        self.slots[i] = (address, body, self._connect(address, body))
                    except OSError:
                        self.slots[i] = (address, body, None)
            self.stop.wait(0.5)
        for _, _, s in self.slots:
            if s is not None:
                s.close()

    def close(self) -> None:
        self.stop.set()
        self.process.join(timeout=10)


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def run(attackers: int, per_address: int, seconds: float, folder: Path) -> dict:
    srv = LiveServer(folder / f"attack-{attackers}.sqlite3", env=FAST)
    srv.start()
    try:
        phones = {c: Phone(srv, source=f"127.0.0.{11 + i}") for i, c in enumerate(COLORS)}
        rng = random.Random(22)
        gid = create_game(phones["blue"], COLORS, seed=22)
        seat_and_start(gid, phones["blue"], phones)
        socks = {c: p.ws(gid) for c, p in phones.items()}
        slow = Slow(srv, gid, [f"127.0.0.{100 + i}" for i in range(attackers)], per_address)
        slow.process.start()
        time.sleep(3 if attackers else 0)   # every slow connection open before the first move
        latencies, peak_threads = [], threads(srv.proc.pid)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            view = phones["blue"].view(gid)
            if view["phase"] != "playing":   # a game ended: the next one
                gid = create_game(phones["blue"], COLORS, seed=rng.randrange(1 << 30))
                seat_and_start(gid, phones["blue"], phones)
                for s in socks.values():
                    s.close()
                socks = {c: p.ws(gid) for c, p in phones.items()}
                continue
            mine = phones[view["to_act"]].view(gid)
            move = choose(mine, rng)
            t0 = time.monotonic()
            r = phones[view["to_act"]].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]),
                                            timeout=60)
            assert r.status == 200, r
            for s in socks.values():
                s.wait_seq(r.json["seq"], timeout=60)
            latencies.append(time.monotonic() - t0)
            peak_threads = max(peak_threads, threads(srv.proc.pid))
        slow.close()
        for p in phones.values():
            p.close()
        return {"moves": len(latencies), "per_s": len(latencies) / seconds,
                "median": statistics.median(latencies), "max": max(latencies), "threads": peak_threads,
                "opened": slow.opened.value}
    finally:
        srv.kill()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--addresses", default="0,8,16")
    ap.add_argument("--per-address", type=int, default=16)
    args = ap.parse_args()
    print(f"four seated phones, {args.seconds:.0f} s per run; attackers hold {args.per_address} slow connections each")
    print(f"{'attacking addresses':>20} {'moves':>6} {'moves/s':>8} {'median ms':>10} {'max ms':>8} "
          f"{'server threads':>15} {'slow conns opened':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.addresses.split(",")]:
            f = run(n, args.per_address, args.seconds, Path(tmp))
            print(f"{n:>20} {f['moves']:>6} {f['per_s']:>8.1f} {f['median'] * 1000:>10.1f} {f['max'] * 1000:>8.0f} "
                  f"{f['threads']:>15} {f['opened']:>18}", flush=True)


if __name__ == "__main__":
    main()
