"""What a finished game's replay costs (issue 41): CPU to work it out, and its size as sent, plain and gzipped.

Run: .venv/bin/python benchmarks/bench_replay.py [--games 20] [--seed 1]
Random 4-player Expert games played to their end (the longest scoring); one replay per game (the table keeps it).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from companion.game.board import load_board  # noqa: E402
from companion.game.record import to_record  # noqa: E402
from companion.game.replay import steps  # noqa: E402
from games import random_game, random_setup  # noqa: E402  (tests/games.py)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    board = load_board()
    cpu, plain, packed, actions = [], [], [], []
    for i in range(args.games):
        rng = random.Random(args.seed * 100_000 + i)
        setup, acts, _ = random_game(rng, random_setup(rng, players=4, mode="expert"))
        doc = to_record(setup, acts)
        t = time.process_time()
        made = steps(doc, board)
        cpu.append(time.process_time() - t)
        text = json.dumps(made, separators=(",", ":")).encode()
        plain.append(len(text))
        packed.append(len(gzip.compress(text)))
        actions.append(len(acts))
    print(f"{args.games} four-player Expert games, {min(actions)}-{max(actions)} actions")
    print(f"replay CPU: median {statistics.median(cpu) * 1000:.1f} ms, max {max(cpu) * 1000:.1f} ms")
    print(f"size: median {statistics.median(plain):,.0f} B JSON, {statistics.median(packed):,.0f} B gzipped "
          f"(max {max(plain):,} / {max(packed):,})")


if __name__ == "__main__":
    main()
