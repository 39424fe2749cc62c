"""Tunes the map's sites (companion/game/data/board-map.json) until the drawn topology is the board's. Not run by the app.

    .venv/bin/python tools/tune_map.py [ITERATIONS] [SEED] [ROOM]      # improves the shipped file in place

A random local search over each site's position and power weight. Hard constraints (heavily weighted): every street
or bridge adjacency of the board data is a common edge of at least MIN_BORDER + 6 units between the two cells; each
lake touches exactly its listed neighborhoods; each statue's three cells meet at one point. Soft: every cell has room
for its pieces (a circle of ROOM units), and sites stay near the board's label points. The sites started from those
label points; a few (the north lake and N07, S01, the south lake, C01) were moved by hand where the search stalled.
tests/test_boardmap.py checks the result as served, so a bad tuning cannot ship unnoticed. After tuning, run
`python -m tools.boardmap --write`: the server ships that drawing, and a test fails until it matches the sites.
"""
from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import boardmap as bm  # noqa: E402

from companion.game.board import board_data  # noqa: E402

DATA = Path(sys.argv[4]) if len(sys.argv) > 4 else ROOT / "companion/game/data/board-map.json"


def depth(poly) -> float:
    """A quick under-estimate of the largest circle inside a convex polygon (a 7 x 7 grid of trial centres)."""
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return max(bm._depth(poly, (min(xs) + (max(xs) - min(xs)) * i / 8, min(ys) + (max(ys) - min(ys)) * j / 8))
               for i in range(1, 8) for j in range(1, 8))


def penalty(sites, weights, raw, room, verbose=False) -> float:
    rel = bm.relation(raw)
    nbs = [n["id"] for n in raw["neighborhoods"]]
    near = bm._nearest(sites, 16)
    land, edges = bm.borders(sites, weights, near)
    length = lambda k: math.dist(*edges[k]) if k in edges else 0.0  # noqa: E731
    say = print if verbose else (lambda *a: None)
    sides = {}
    shapes = bm.cells(sites, weights, rel, near=near, sides=sides)
    facing = lambda i, j: min(sides.get((i, j), 0.0), sides.get((j, i), 0.0))  # noqa: E731
    pen = 0.0
    for pair, kind in rel.items():
        a, b = sorted(pair)
        # a street is measured as drawn (after the gaps); a bridge needs room on the gap-free edge for its span
        got, need = (facing(a, b), bm.MIN_BORDER + 4) if kind == "street" else (length(pair), bm.MIN_BORDER + 6)
        if got < need:
            pen += (need - got) * 30
            say("short border", a, b, round(got))
    water = [k for k in sites if k.startswith("lake")]
    for lake in raw["lakes"]:
        parts = [k for k in water if bm.lake_of(k) == lake["id"]]
        for nb in nbs:
            L = max(sides.get((nb, p), 0.0) for p in parts)
            if nb in lake["neighborhoods"] and L < 14:
                pen += (14 - L) * 20
                say("lake misses", lake["id"], nb)
            if nb not in lake["neighborhoods"] and L > 0:
                pen += L * 20 + 50
                say("lake touches", lake["id"], nb)
        for p in parts:
            if depth(land[p]) < 12:
                pen += (12 - depth(land[p])) * 5
        if len(parts) == 2 and length(frozenset(parts)) < 12:     # the two halves of an L make one lake
            pen += (12 - length(frozenset(parts))) * 20
            say("lake halves apart", lake["id"])
    for i, p in enumerate(water):
        for q in water[i + 1:]:
            if bm.lake_of(p) != bm.lake_of(q) and length(frozenset((p, q))) > 0:
                pen += 200
                say("lakes touch", p, q)
    for statue in raw["statues"]:
        a, b, c = statue["neighborhoods"]
        at = bm.power_center(sites[a], weights.get(a, 0), sites[b], weights.get(b, 0), sites[c], weights.get(c, 0))
        for x in (a, b, c):
            off = min(math.dist(at, v) for v in land[x])
            if off > 0.5:
                pen += 100 + 10 * min(off, 30)
                say("statue", statue["id"], x, round(off))
    blind = set(raw["blind_alleys"])
    for nb in nbs:
        d = depth(shapes[nb]) if shapes[nb] else -100
        need = room * 0.7 if nb in blind else room     # a blind alley holds a building but never a token
        if d < need:
            pen += (need - d) * 5
        if d < 22:                                      # room for a number and a building at the least
            pen += (22 - d) * 30
            say("room", nb, round(d))
    home = {n["id"]: (n["x"] * bm.W / 100, n["y"] * bm.H / 100) for n in raw["neighborhoods"]}
    home.update({f["id"]: (f["x"] * bm.W / 100, f["y"] * bm.H / 100) for f in raw["lakes"]})
    return pen + sum(0.002 * math.dist(sites[k], home[bm.lake_of(k)]) ** 2 for k in sites)


def save(sites, weights, path=DATA):
    data = {"about": "Sites (board percent) and power weights (squared map units) of the map's cells; "
                     "made by tools/tune_map.py, drawn by tools/boardmap.py, checked by tests/test_boardmap.py",
            "sites": {k: [round(v[0] * 100 / bm.W, 2), round(v[1] * 100 / bm.H, 2)] for k, v in sites.items()},
            "weights": {k: round(v) for k, v in weights.items() if abs(v) > 0.5}}
    path.write_text(json.dumps(data, indent=0) + "\n", "utf-8")


def main(argv):
    iterations, seed, room = (int(argv[0]) if argv else 1000), (int(argv[1]) if len(argv) > 1 else 1), \
        (float(argv[2]) if len(argv) > 2 else 46.0)
    raw = board_data()
    sites, weights = bm.sites_from(json.loads(DATA.read_text("utf-8")))
    rng = random.Random(seed)
    best = penalty(sites, weights, raw, room, verbose=True)
    keys = list(sites)
    focus = [n for n in keys if not n.startswith("lake")]
    for it in range(iterations):
        if it % 50 == 0:     # most moves go to the cramped cells and their neighbors
            rel = bm.relation(raw)
            shapes = bm.cells(sites, weights, rel, near=bm._nearest(sites, 16))
            tight = [n for n in focus if (depth(shapes[n]) if shapes[n] else -100) < room * (0.7 if n in raw["blind_alleys"] else 1) - 4]
            near = bm._nearest(sites, 5)
            pool = sorted(set(tight) | {m for n in tight for m in near[n]}) or keys
        k = rng.choice(pool if rng.random() < 0.8 else keys)
        old = sites[k], weights.get(k, 0.0)
        step = rng.choice([2, 5, 10, 20])
        if rng.random() < 0.7:
            sites[k] = (old[0][0] + rng.gauss(0, step), old[0][1] + rng.gauss(0, step))
        else:
            weights[k] = old[1] + rng.gauss(0, step * 80)
        try:
            now = penalty(sites, weights, raw, room)
        except (ValueError, ZeroDivisionError):   # a cell vanished
            now = math.inf
        if now <= best:
            best = now
        else:
            sites[k], weights[k] = old
        if it % 100 == 0:
            print(it, round(best, 1), flush=True)
            save(sites, weights)
    save(sites, weights)
    print("end", penalty(sites, weights, raw, room, verbose=True))
    print(f"now regenerate the drawing the server ships: {bm.WRITE}")


if __name__ == "__main__":
    main(sys.argv[1:])
