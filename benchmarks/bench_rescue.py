"""A gone seat taken back by its player while strangers' scripts ask for it every 50 ms (issue 31). Prints
figures; not a test.

    .venv/bin/python benchmarks/bench_rescue.py [--rounds 10] [--strangers 0,1,5]

For each stranger count, a fresh `companion serve` on 127.0.0.1 (COMPANION_HOST_AWAY=1, SEAT_MOVE_WAIT=1):
four seated phones (127.0.0.11-14), white's phone gone. Each stranger (127.0.0.100 and up, its own cookie)
posts `/seats/white/rescue` every 50 ms. Each round white's player, on a new borrowed phone, asks, reads
the code the Pi's screen lists under its number, types it, and waits for the seat. Figures: rounds won,
median and slowest seconds from the ask to the seat (the 1 s announcement included), the strangers' answers.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer, Phone, create_game, seat_and_start  # noqa: E402

COLORS = ("blue", "red", "white", "gray")
ENV = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000", "COMPANION_HOST_AWAY": "1",
       "COMPANION_SEAT_MOVE_WAIT": "1"}


def run(strangers: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "companion.sqlite3", env=ENV)
        server.start()
        try:
            ph = {c: Phone(server, source=f"127.0.0.{11 + i}") for i, c in enumerate(COLORS)}
            gid = create_game(ph["blue"], list(COLORS))
            seat_and_start(gid, ph["blue"], ph)
            pi = Phone(SimpleNamespace(origin=f"http://localhost:{server.port}",
                                       ws_base=f"ws://localhost:{server.port}"))
            path = f"/api/games/{gid}/seats/white/rescue"
            time.sleep(1.2)
            halt, answers = threading.Event(), {}

            def script(p: Phone) -> None:
                while not halt.is_set():
                    status = p.post(path).status
                    answers[status] = answers.get(status, 0) + 1
                    halt.wait(0.05)

            threads = [threading.Thread(target=script, args=(Phone(server, source=f"127.0.0.{100 + i}"),),
                                        daemon=True) for i in range(strangers)]
            for t in threads:
                t.start()
            took = []
            for i in range(rounds):
                borrowed = Phone(server, source=f"127.0.0.{30 + i}")
                t0 = time.perf_counter()
                r = borrowed.post(path)
                number = r.json.get("seat_move_ask") if r.json else None
                code = None
                while code is None and time.perf_counter() - t0 < 60:
                    code = next((a["code"] for a in pi.view(gid).get("seat_move_codes") or []
                                 if a["ask"] == number), None)
                if code is None or borrowed.post(path, {"code": code}).status != 200:
                    continue
                while "you" not in borrowed.view(gid) and time.perf_counter() - t0 < 60:
                    time.sleep(0.05)
                if "you" in borrowed.view(gid):
                    took.append(time.perf_counter() - t0)
            halt.set()
            for t in threads:
                t.join(timeout=5)
            med = statistics.median(took) if took else float("nan")
            print(f"{strangers:2d} strangers: {len(took)}/{rounds} rounds to the player, median {med:.2f} s, "
                  f"slowest {max(took or [float('nan')]):.2f} s; strangers' answers {dict(sorted(answers.items()))}",
                  flush=True)
        finally:
            server.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--strangers", default="0,1,5")
    args = ap.parse_args()
    for n in (int(x) for x in args.strangers.split(",")):
        run(n, args.rounds)


if __name__ == "__main__":
    main()
