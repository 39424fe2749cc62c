"""Strangers' games with Pi seats beside the table's own (issue 42, item 2). Prints figures; not a test.

    .venv/bin/python benchmarks/bench_pi_stall.py [--seconds 90] [--addresses 6] [--level strong]

A fresh `companion serve` on 127.0.0.1 with the default limits (the Pi's pause COMPANION_BOT_DELAY set to 0, so
the figure is the Pi's own wait and thinking, not the pause a table sees on purpose). The honest table: two phones
(127.0.0.11-12) and a strong Pi seat in a three-player Expert game, shown on the table screen, playing random legal
moves. The strangers: ADDRESSES addresses (127.0.0.100 and up), each making four-player Expert games from a fresh
cookie per game, one seat taken and three Pi seats at LEVEL, starting as many as the server allows and bidding in
them whenever their seat is to act. Figures: the honest Pi's move times (from the view where it is to act to the
view of its move) median and maximum, and how many strangers' games were started and refused.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer, Phone, choose, create_game  # noqa: E402


def stranger(server, address: str, level: str, stop: threading.Event, counts: dict) -> None:
    """Start games from fresh cookies until refused, then keep bidding in the started ones."""
    rng = random.Random(address)
    games: list[tuple[str, Phone]] = []
    while not stop.is_set():
        if len(games) < 50:
            me = Phone(server, source=address)
            try:
                gid = create_game(me, ("blue", "red", "white", "gray"), mode="expert", pace="timer")
            except AssertionError:
                counts["create_refused"] += 1
                time.sleep(0.5)
                continue
            me.post(f"/api/games/{gid}/seats/blue", {"name": "X"})
            for c in ("red", "white", "gray"):
                me.post(f"/api/games/{gid}/seats/{c}/pi", {"level": level})
            r = me.post(f"/api/games/{gid}/start")
            if r.status == 200:
                counts["started"] += 1
                games.append((gid, me))
            else:
                counts["start_refused"] += 1
        for gid, me in games:
            view = me.get(f"/api/games/{gid}").json or {}
            if view.get("phase") == "playing" and view.get("to_act") == "blue" and view.get("legal"):
                me.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.1), expect_seq=view["seq"]))
        time.sleep(0.05)


def honest(server, seconds: float, level: str) -> list[float]:
    ann, bea = Phone(server, source="127.0.0.11"), Phone(server, source="127.0.0.12")
    gid = create_game(ann, ("blue", "red", "white"), mode="expert", pace="timer")
    ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"})
    bea.post(f"/api/games/{gid}/seats/red", {"name": "Bea"})
    ann.post(f"/api/games/{gid}/seats/white/pi", {"level": level})
    view = ann.post(f"/api/games/{gid}/start").json
    phones = {"blue": ann, "red": bea}
    sock = ann.ws(gid)
    rng, times, end = random.Random(1), [], time.monotonic() + seconds
    while time.monotonic() < end and view["phase"] == "playing":
        if view["to_act"] in phones:
            time.sleep(0.5)   # a person thinks a little
            me = phones[view["to_act"]]
            mine = me.view(gid)
            view = me.post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.2), expect_seq=mine["seq"])).json
        else:
            asked = time.monotonic()
            view = sock.wait_seq(view["seq"] + 1, timeout=max(1.0, end - asked + 60))
            times.append(time.monotonic() - asked)
            view = ann.view(gid)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--addresses", type=int, default=6)
    ap.add_argument("--level", default="strong")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "companion.sqlite3", env={"COMPANION_BOT_DELAY": "0"})
        server.start()
        try:
            stop = threading.Event()
            counts = {"started": 0, "start_refused": 0, "create_refused": 0}
            # The honest table starts first (its game takes the table screen), the strangers right after.
            result: dict = {}
            runner = threading.Thread(target=lambda: result.update(times=honest(server, args.seconds, args.level)))
            runner.start()
            time.sleep(3)
            threads = [threading.Thread(target=stranger, args=(server, f"127.0.0.{100 + i}", args.level, stop, counts),
                                        daemon=True) for i in range(args.addresses)]
            for t in threads:
                t.start()
            runner.join()
            stop.set()
            for t in threads:
                t.join(timeout=30)
        finally:
            server.kill()
    times = result.get("times", [])
    print(f"strangers: {args.addresses} addresses, {counts['started']} games started with three {args.level} Pi "
          f"seats, {counts['start_refused']} starts and {counts['create_refused']} creations refused")
    if times:
        print(f"the honest table's Pi ({args.level}): {len(times)} moves in {args.seconds:.0f} s, median "
              f"{statistics.median(times):.2f} s, max {max(times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
