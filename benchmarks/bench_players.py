"""How strong the Pi's players are: issue 32's tournaments through the real `companion tournament`, one at a time.

Run: nice -n 10 .venv/bin/python benchmarks/bench_players.py [--games 400] [--seed 1] [--only 2p-expert-strong-greedy]
Targets (issue 32, item 5): strong beats greedy >= 75% (2p Expert and 2p Family), wins >= 45% of 4p Expert against
three greedy, beats random >= 98%; normal between greedy and strong; easy beats random >= 80% and loses to greedy
more often than not; 0 illegal actions; strong's decision median <= 100 ms and p99 <= 300 ms of process CPU.
Prints one line of JSON per tournament as it finishes, then the table (Markdown, for docs/PLAYERS.md).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name, players, mode, seats, what the first seat must reach (win rate), and how it is compared
RUNS = (   # the cheapest and the most telling first: each line prints as it finishes
    ("2p-expert-strong-greedy", 2, "expert", "strong,greedy", ">=", 0.75),
    ("2p-family-strong-greedy", 2, "family", "strong,greedy", ">=", 0.75),
    ("2p-expert-strong-random", 2, "expert", "strong,random", ">=", 0.98),
    ("2p-expert-easy-random", 2, "expert", "easy,random", ">=", 0.80),
    ("2p-expert-easy-greedy", 2, "expert", "easy,greedy", "<", 0.5),
    ("2p-family-easy-random", 2, "family", "easy,random", ">=", 0.80),
    ("2p-family-easy-greedy", 2, "family", "easy,greedy", "<", 0.5),
    ("2p-expert-normal-greedy", 2, "expert", "normal,greedy", ">", 0.5),
    ("2p-family-normal-greedy", 2, "family", "normal,greedy", ">", 0.5),
    ("2p-family-strong-random", 2, "family", "strong,random", ">=", 0.98),
    ("2p-expert-strong-normal", 2, "expert", "strong,normal", ">", 0.5),
    ("4p-expert-strong-3greedy", 4, "expert", "strong,greedy,greedy,greedy", ">=", 0.45),
)


def run(players: int, mode: str, seats: str, games: int, seed: int) -> dict:
    """One tournament through the command a person would type."""
    out = subprocess.run(
        [sys.executable, "-m", "companion", "tournament", "--players", str(players), "--mode", mode,
         "--seats", seats, "--games", str(games), "--seed", str(seed)],
        cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", help="run only these names (repeatable)")
    args = ap.parse_args()
    rows = []
    for name, players, mode, seats, op, target in RUNS:
        if args.only and name not in args.only:
            continue
        result = run(players, mode, seats, args.games, args.seed)
        print(json.dumps({"run": name, **result}), flush=True)
        first = result["seats"][0]
        rate = first["win_rate"]
        met = {">=": rate >= target, ">": rate > target, "<": rate < target}[op]
        illegal = sum(s["illegal"] for s in result["seats"])
        rows.append((name, seats, mode, first, op, target, met, illegal))
    print()
    print("| tournament | seats | first seat wins | mean score | target | met | illegal | first seat's decision ms (median / p99) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, seats, mode, first, op, target, met, illegal in rows:
        print(f"| {name} | {seats} | {first['win_rate']:.1%} | {first['mean_score']} | {op} {target:.0%} | "
              f"{'yes' if met else 'NO'} | {illegal} | {first['decision_ms']['median']} / {first['decision_ms']['p99']} |")
    return 0 if all(r[6] and r[7] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
