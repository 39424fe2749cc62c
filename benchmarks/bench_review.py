"""The Pi's review and its hints (issue 41): CPU, readiness at a table's pace, and phones' requests while it runs.

    .venv/bin/python benchmarks/bench_review.py cpu [--seed 3]            # whole review of a 4-player Expert game; hints
    .venv/bin/python benchmarks/bench_review.py pace [--seed 3] [--pace 2] # ready how long after the last action
    .venv/bin/python benchmarks/bench_review.py phones [--requests 300]   # view GETs while the review runs, and after

cpu: a 4-player Expert game played by strong (seeded), then every seat's review as the Pi works it out (each
decision judged from that seat's view), in this process's CPU seconds; and a hint at every decision, median CPU ms.
pace: the same game's decisions handed to the table's Reviewer (the Pi's own process, low priority) one every --pace
seconds; prints the seconds from the last action to the whole review.
phones: a real `companion serve`; four phones play a 4-player Expert game as fast as the API answers (every decision
queued for review), then a phone's view is fetched --requests times while the Pi's process reviews, and as many times
once the review is ready; median, p90, p99 of each.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion import players  # noqa: E402
from companion.game.rules import apply, new_game  # noqa: E402
from companion.players.match import random_setup  # noqa: E402
from companion.players.review import advice, is_decision, review_game  # noqa: E402
from companion.players.seen import hide  # noqa: E402


def strong_game(seed: int):
    rng = random.Random(seed)
    setup = random_setup(4, "expert", rng)
    rngs = [random.Random(f"{seed}/{i}") for i in range(4)]
    state, actions = new_game(setup), []
    while not state.finished:
        color = state.to_act_color
        action = players.play(hide(state, color), color, "strong", rngs[state.to_act])
        actions.append(action)
        state = apply(state, action)
    return setup, actions


def cpu(args) -> None:
    setup, actions = strong_game(args.seed)
    t0 = time.process_time()
    seats = review_game(setup, actions, setup.colors, "bench")
    spent = time.process_time() - t0
    decisions = sum(s["decisions"] for s in seats.values())
    print(f"whole review: {len(actions)} actions, {decisions} decisions, {spent:.2f} s CPU "
          f"({1000 * spent / decisions:.0f} ms a decision)")
    state, hints = new_game(setup), []
    for i, action in enumerate(actions):
        if is_decision(state):
            t0 = time.process_time()
            advice(hide(state, state.to_act_color), state.to_act_color, f"h{i}")
            hints.append(1000 * (time.process_time() - t0))
        state = apply(state, action)
    hints.sort()
    print(f"hint: {len(hints)} asked, median {statistics.median(hints):.0f} ms CPU, "
          f"p90 {hints[int(0.9 * len(hints))]:.0f} ms, max {hints[-1]:.0f} ms")


def pace(args) -> None:
    from companion.pi_seat import PiThinker
    from companion.table.reviews import Reviewer
    setup, actions = strong_game(args.seed)
    reviewer = Reviewer(PiThinker(None, 0.0, process=True))
    game = SimpleNamespace(id="bench", devices={}, actions=[])
    reviewer.thinker.background(int, 0)   # the Pi's process is up before the game, as when a table starts
    state = new_game(setup)
    for action in actions:
        game.actions.append(action)
        reviewer.decided(game, state, action)
        state = apply(state, action)
        time.sleep(args.pace)
    t0 = time.monotonic()
    while True:
        seats = reviewer.review("bench", setup, actions, list(setup.colors))[0]
        if seats is not None:
            break
        time.sleep(0.01)
    print(f"{len(actions)} actions, one every {args.pace} s: the review of {sum(s['decisions'] for s in seats.values())}"
          f" decisions ready {time.monotonic() - t0:.2f} s after the last action")


def phones(args) -> None:
    import http.client
    from bench_pi_seat import Conn as Kept

    class Conn(Kept):
        """A keep-alive connection opened again when the server closed it while idle (never timed)."""

        def call(self, method, path, body=None):
            try:
                return super().call(method, path, body)
            except (http.client.RemoteDisconnected, ConnectionError):
                self.conn = http.client.HTTPConnection("127.0.0.1", self.phone.server.port, timeout=30)
                return super().call(method, path, body)
    from server_helpers import LiveServer, Phone, choose, create_game
    from conftest import FAST
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "companion.sqlite3", env=FAST)
        server.start()
        try:
            colors = ("blue", "red", "white", "gray")
            ps = {c: Phone(server) for c in colors}
            gid = create_game(ps["blue"], colors, mode="expert", seed=args.seed)
            for c, p in ps.items():
                assert p.post(f"/api/games/{gid}/seats/{c}", {"name": c}).status == 200
            assert ps["blue"].post(f"/api/games/{gid}/start").status == 200
            conns = {c: Conn(p) for c, p in ps.items()}
            rng, view = random.Random(args.seed), ps["blue"].view(gid)
            while view["phase"] == "playing":
                c = view["to_act"]
                _, _, mine = conns[c].call("GET", f"/api/games/{gid}")
                _, status, view = conns[c].call("POST", f"/api/games/{gid}/actions",
                                                dict(choose(mine, rng, 0.3), expect_seq=mine["seq"]))
                assert status == 200, view
            watch = conns["red"]
            during = [watch.call("GET", f"/api/games/{gid}")[0] for _ in range(args.requests)]
            t0 = time.monotonic()
            while ps["blue"].get(f"/api/games/{gid}/review").status == 202:
                time.sleep(0.05)
            left = time.monotonic() - t0
            after = [watch.call("GET", f"/api/games/{gid}")[0] for _ in range(args.requests)]
        finally:
            server.kill()
    for name, xs in (("while the Pi reviews", during), ("once it is done", after)):
        xs = sorted(xs)
        print(f"{name}: median {statistics.median(xs):.2f} ms, p90 {xs[int(0.9 * len(xs))]:.2f} ms, "
              f"p99 {xs[int(0.99 * len(xs))]:.2f} ms")
    print(f"(the review was still being worked out for {left:.1f} s after the first series)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("cpu", "pace", "phones"))
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--pace", type=float, default=2.0)
    ap.add_argument("--requests", type=int, default=300)
    a = ap.parse_args()
    {"cpu": cpu, "pace": pace, "phones": phones}[a.what](a)
