"""strong's decision in CPU, position by position, and a fingerprint of every decision it made (issue 40, item 6).

    .venv/bin/python benchmarks/bench_playout.py [--positions 300] [--seed 7]             # CPU a decision
    .venv/bin/python benchmarks/bench_playout.py --dump /tmp/before.json                  # ... and keep the decisions
    .venv/bin/python benchmarks/bench_playout.py --compare /tmp/before.json               # the same decisions?
    .venv/bin/python benchmarks/bench_playout.py --strong0 --dump /tmp/b.json             # strong0's values too
    .venv/bin/python benchmarks/bench_playout.py --positions 40 --profile                 # where the time goes
    .venv/bin/python benchmarks/bench_playout.py --as strong --seats 2 --mode expert      # strong's own budget

Positions: met in seeded games of 2, 3 and 4 seats, Family and Expert, played by greedy with random slips (a few
per game, each with a choice to make). At each, strong's search from the seat's view (appraise: every candidate's
value; its argmax is strong's move) with the seed of the position, in this process's CPU time (--strong0: the old
search's values too, untimed: strong0's, and strong's prior). --dump writes every
position's move and candidates' values; --compare reads such a file and counts the positions whose move, and whose
values, are exactly the same: an optimisation of the playouts must change none.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import players  # noqa: E402
from companion.game.rules import apply, legal_actions, new_game  # noqa: E402
from companion.players import montecarlo, search  # noqa: E402
from companion.players.appraise import appraise  # noqa: E402
from companion.players.match import random_setup  # noqa: E402
from companion.players.seen import hide  # noqa: E402


def positions(count: int, seed: int) -> list:
    """(seen, color) at decisions met in seeded games, every seat count and both modes in turn."""
    rng, out, tables = random.Random(seed), [], [(p, m) for p in (2, 3, 4) for m in ("family", "expert")]
    g = 0
    while len(out) < count:
        players_, mode = tables[g % len(tables)]
        g += 1
        state = new_game(random_setup(players_, mode, rng))
        met = []
        while not state.finished:
            color = state.to_act_color
            seen = hide(state, color)
            if len(legal_actions(state)) > 1:
                met.append((seen, color))
            level = "random" if rng.random() < 0.2 else "greedy"
            state = apply(state, players.play(seen, color, level, rng))
        out += rng.sample(met, min(4, len(met)))
    return out[:count]


def key(action) -> str:
    return repr(action)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dump")
    ap.add_argument("--compare")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--strong0", action="store_true", help="also keep the old search's values (strong0, strong's prior)")
    ap.add_argument("--as", dest="budget", choices=("review", "strong"), default="review",
                    help="whose budget weighs: the review's (appraise, the default) or strong's own")
    ap.add_argument("--seats", type=int, choices=(2, 3, 4), help="only positions at this many seats")
    ap.add_argument("--mode", choices=("family", "expert"), help="only positions of this mode")
    args = ap.parse_args()
    found = [(seen, color) for seen, color in positions(args.positions, args.seed)
             if args.seats in (None, len(seen.setup.seats)) and args.mode in (None, seen.setup.mode)]
    ms, record = {2: [], 3: [], 4: []}, []
    prof = cProfile.Profile() if args.profile else None
    for i, (seen, color) in enumerate(found):
        t0 = time.process_time()
        if prof:
            prof.enable()
        rng = random.Random(f"bench/{i}")
        if args.budget == "strong":
            values = montecarlo.weigh_strong(seen, color, rng, montecarlo.strong_budget(seen))
        else:
            values = appraise(seen, color, rng)
        if prof:
            prof.disable()
        ms[len(seen.setup.seats)].append(1000 * (time.process_time() - t0))
        best = max(values, key=values.get)
        record.append({"move": key(best), "values": sorted((key(a), v) for a, v in values.items())})
        if args.strong0:
            old = search.weigh(seen, color, random.Random(i), search.STRONG)
            record[-1]["strong0"] = [(key(a), v) for a, v in old]
    every = sorted(x for xs in ms.values() for x in xs)
    print(f"{len(every)} decisions: median {statistics.median(every):.0f} ms CPU, p90 {every[int(0.9 * len(every))]:.0f},"
          f" p99 {every[int(0.99 * len(every))]:.0f}, max {every[-1]:.0f}")
    for n, xs in ms.items():
        if xs:
            xs.sort()
            print(f"  {n} seats: {len(xs)} decisions, median {statistics.median(xs):.0f} ms, max {xs[-1]:.0f}")
    if args.dump:
        Path(args.dump).write_text(json.dumps(record))
    if args.compare:
        old, record = json.loads(Path(args.compare).read_text()), json.loads(json.dumps(record))
        moves = sum(a["move"] == b["move"] for a, b in zip(old, record))
        values = sum(a["values"] == b["values"] and a.get("strong0") == b.get("strong0") for a, b in zip(old, record))
        print(f"compared {min(len(old), len(record))} positions: same move {moves}, same values {values}")
        if moves != len(record) or values != len(record):
            return 1
    if prof:
        pstats.Stats(prof).sort_stats("cumtime").print_stats(30)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
