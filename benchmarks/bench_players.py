"""How strong the Pi's players are: issue 32's tournaments through the real `companion tournament`, one at a time.

Run: nice -n 10 .venv/bin/python benchmarks/bench_players.py [--games 400] [--seed 1] [--only 2p-expert-strong-greedy]
     [--slices 2] [--progress DIR]   (--slices: one process per core; the same 400 games as one process plays)
Targets (issue 40, item 6): strong beats mc (the Monte Carlo baseline, given about strong's CPU a decision: mc@800
beside strong's 640 playouts, 2 seats) >= 60% and
strong0 (issue 32's strong, frozen) >= 80% of 2p Expert games; strong beats greedy >= 95% (2p Expert and Family) and
wins >= 60% of 4p Expert against three greedy; normal between greedy and strong; easy beats random >= 80% and loses
to greedy more often than not; 0 illegal actions; strong's decision median <= 300 ms and p99 <= 1 s of process CPU.
Prints one line of JSON per tournament as it finishes, then the table (Markdown, for docs/PLAYERS.md).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import tempfile
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name, players, mode, seats, what the first seat must reach (win rate), and how it is compared
RUNS = (   # the most telling first (issue 40, item 6): each line prints as it finishes
    ("2p-expert-strong-mc", 2, "expert", "strong,mc@800", ">=", 0.60),     # mc's playouts: about strong's CPU
    ("2p-expert-strong-strong0", 2, "expert", "strong,strong0", ">=", 0.80),
    ("2p-expert-strong-greedy", 2, "expert", "strong,greedy", ">=", 0.95),
    ("2p-family-strong-greedy", 2, "family", "strong,greedy", ">=", 0.95),
    ("4p-expert-strong-3greedy", 4, "expert", "strong,greedy,greedy,greedy", ">=", 0.60),
    ("2p-expert-mc-strong0", 2, "expert", "mc,strong0", ">", 0.5),
    ("2p-expert-strong-normal", 2, "expert", "strong,normal", ">", 0.5),
    ("2p-expert-normal-greedy", 2, "expert", "normal,greedy", ">", 0.5),
    ("2p-family-normal-greedy", 2, "family", "normal,greedy", ">", 0.5),
    ("2p-expert-strong-random", 2, "expert", "strong,random", ">=", 0.98),
    ("2p-family-strong-random", 2, "family", "strong,random", ">=", 0.98),
    ("2p-expert-easy-random", 2, "expert", "easy,random", ">=", 0.80),
    ("2p-expert-easy-greedy", 2, "expert", "easy,greedy", "<", 0.5),
    ("2p-family-easy-random", 2, "family", "easy,random", ">=", 0.80),
    ("2p-family-easy-greedy", 2, "family", "easy,greedy", "<", 0.5),
)


def run(players: int, mode: str, seats: str, games: int, seed: int, progress: Path, slices: int = 1) -> dict:
    """One tournament through the command a person would type, in `slices` processes side by side (game g is the
    same game in whichever slice plays it: its seed and seat rotation follow from g), merged from their progress."""
    cuts = [games * k // slices for k in range(slices + 1)]
    files = [progress.with_name(f"{progress.stem}.{k}.jsonl") if slices > 1 else progress for k in range(slices)]
    procs = [subprocess.Popen(
        [sys.executable, "-m", "companion", "tournament", "--players", str(players), "--mode", mode,
         "--seats", seats, "--games", str(cuts[k + 1] - cuts[k]), "--first", str(cuts[k]), "--seed", str(seed),
         "--progress", str(files[k])], cwd=ROOT, stdout=subprocess.DEVNULL)
        for k in range(slices) if cuts[k + 1] > cuts[k]]
    if any(p.wait() for p in procs):
        raise SystemExit(f"a tournament for {seats} failed")
    return so_far(progress)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", help="run only these names (repeatable)")
    ap.add_argument("--progress", help="a folder: each run appends a line per game to <name>[.<slice>].jsonl there")
    ap.add_argument("--slices", type=int, default=1,
                    help="play each tournament in this many processes side by side (one per core)")
    ap.add_argument("--table", help="a --progress folder: print the table from the games played so far, play none")
    args = ap.parse_args()
    rows = []
    for name, players, mode, seats, op, target in RUNS:
        if args.only and name not in args.only:
            continue
        if args.table:
            result = so_far(Path(args.table) / f"{name}.jsonl")
            if result is None:
                continue
        else:
            folder = Path(args.progress or tempfile.mkdtemp(prefix="bench-players-"))
            folder.mkdir(parents=True, exist_ok=True)
            result = run(players, mode, seats, args.games, args.seed, folder / f"{name}.jsonl", args.slices)
            print(json.dumps({"run": name, **result}), flush=True)
        first = result["seats"][0]
        rate = first["win_rate"]
        met = {">=": rate >= target, ">": rate > target, "<": rate < target}[op]
        illegal = sum(s["illegal"] for s in result["seats"])
        rows.append((name, seats, mode, first, result["seats"][1], op, target, met, illegal, result["games"]))
    print()
    print("| tournament | seats | games | first seat wins (95% interval) | mean score | target | met | illegal |"
          " decision ms, first / second seat (median, p99) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, seats, mode, first, second, op, target, met, illegal, games in rows:
        lo, hi = wilson(first["wins"], games)
        print(f"| {name} | {seats} | {games} | {first['win_rate']:.1%} ({lo:.0%}-{hi:.0%}) | {first['mean_score']} / "
              f"{second['mean_score']} | {op} {target:.0%} | {'yes' if met else 'NO'} | {illegal} | "
              f"{first['decision_ms']['median']}, {first['decision_ms']['p99']} / "
              f"{second['decision_ms']['median']}, {second['decision_ms']['p99']} |")
    return 0 if all(r[7] and r[8] == 0 for r in rows) else 1


def so_far(path: Path) -> dict | None:
    """The summary of the games a --progress file holds, or its slices <name>.<k>.jsonl merged (a run still going,
    or cut short): wins, scores and illegal actions added up, the decisions' CPU pooled; None without a game."""
    files = [path] if path.exists() else sorted(path.parent.glob(f"{path.stem}.*.jsonl"))
    lasts, pooled = [], None
    for f in files:
        lines = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
        lines = [x for x in lines if "seats" in x]
        if not lines:
            continue
        lasts.append(lines[-1])
        if all("decision_ms_game" in x for x in lines):
            pooled = pooled or [[] for _ in lines[-1]["seats"]]
            for x in lines:
                for e, ms in enumerate(x["decision_ms_game"]):
                    pooled[e].extend(ms)
        elif len(files) > 1:
            raise SystemExit(f"{f}: slices without each game's decisions cannot be merged")
    if not lasts:
        return None
    if len(lasts) == 1 and pooled is None:
        return lasts[0]
    games = sum(x["games"] for x in lasts)
    seats = []
    for e, first in enumerate(lasts[0]["seats"]):
        wins = sum(x["seats"][e]["wins"] for x in lasts)
        ms = sorted(pooled[e]) or [0.0]
        seats.append({
            "level": first["level"], "wins": wins, "win_rate": round(wins / games, 4),
            "mean_score": round(sum(round(x["seats"][e]["mean_score"] * x["games"]) for x in lasts) / games, 3),
            "illegal": sum(x["seats"][e]["illegal"] for x in lasts),
            "decision_ms": {"median": round(statistics.median(ms), 3),
                            "p99": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 3)}})
    return {"games": games, "seats": seats}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (shared victories count as wins, as the tournament counts)."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


if __name__ == "__main__":
    sys.exit(main())
