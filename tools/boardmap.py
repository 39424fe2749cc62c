"""Offline: the board map's geometry, drawn from the board's own topology so what touches on screen touches on the board.

Each neighborhood is the power cell (a weighted Voronoi cell) of a site kept in game/data/board-map.json; each lake
is a water cell of its own (an L-shaped lake two). Two cells are pulled apart by a street's width where the board joins them by
street and by a river's width everywhere else, so any two shapes that come close either share a street or
have water between them. Bridges cross the river where the board has them; statues stand where their three
neighborhoods meet. The tuned sites are checked against the board data by tests/test_boardmap.py.

The server does none of this work: it serves game/data/board-map-drawn.json, the drawing for both orientations
as the SVG prints it, written by `python -m tools.boardmap --write`; tests/test_boardmap.py checks that
recomputing gives exactly that file.
"""
from __future__ import annotations

import json
import math
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path

from companion.game.board import board_data
from companion.web.boardmap import DRAWN

W, H = 1000.0, 696.0          # the board artwork's 795 x 553 proportions
STREET = 3.0                  # half a street: neighbors joined by street are 6 units apart
WATER = 9.0                   # half a river: anything not joined by street is 18 units apart
EDGE = 6.0                    # the city's edge
MIN_BORDER = 24.0             # a shared border shorter than this would read as a corner


def _clip(poly, nx, ny, c):
    """Keeps the part of a convex polygon where nx*x + ny*y <= c."""
    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        dp, dq = nx * p[0] + ny * p[1] - c, nx * q[0] + ny * q[1] - c
        if dp <= 0:
            out.append(p)
        if (dp < 0) != (dq < 0) and dp != dq:
            s = dp / (dp - dq)
            out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def _bisector(p, wp, q, wq):
    """Unit normal n (p towards q) and c so that the power bisector of p and q is n.x = c."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    c = ((q[0] ** 2 + q[1] ** 2) - (p[0] ** 2 + p[1] ** 2) + wp - wq) / (2 * length)
    return dx / length, dy / length, c


def relation(raw: dict) -> dict[frozenset, str]:
    """'street' or 'bridge' for every adjacent pair of the board data."""
    return {frozenset((e["a"], e["b"])): "bridge" if e["bridge"] else "street" for e in raw["adjacencies"]}


def _nearest(sites: dict, k: int):
    """Each site's k nearest others: the only ones that can cut its cell when weights are modest (the tuner's shortcut)."""
    return {i: sorted((j for j in sites if j != i), key=lambda j: math.dist(p, sites[j]))[:k] for i, p in sites.items()}


def cells(sites: dict, weights: dict, rel: dict, street: float = STREET, gap=True, near=None, sides=None) -> dict[str, list]:
    """The power cell of every site, pulled back half a street or half a river from each other site.

    With `sides` (a dict), also fills sides[(i, j)] with the length of i's outline that faces j."""
    out = {}
    box = [(EDGE, EDGE), (W - EDGE, EDGE), (W - EDGE, H - EDGE), (EDGE, H - EDGE)]
    for i, p in sites.items():
        poly = [(v, None) for v in box]
        for j in (near[i] if near else sites):
            q = sites[j]
            if j == i:
                continue
            nx, ny, c = _bisector(p, weights.get(i, 0.0), q, weights.get(j, 0.0))
            lake = i.startswith("lake") or j.startswith("lake")
            g = 0.0 if not gap or lake else street if rel.get(frozenset((i, j))) == "street" else WATER
            poly = _clip_labeled(poly, nx, ny, c - g, j)
            if not poly:
                break
        out[i] = [v for v, _ in poly]
        if sides is not None:
            for k, (v, label) in enumerate(poly):
                if label is not None:
                    sides[(i, label)] = sides.get((i, label), 0.0) + math.dist(v, poly[(k + 1) % len(poly)][0])
    return out


def area(poly) -> float:
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(poly, poly[1:] + poly[:1]))) / 2


def inside(poly, pt, margin=0.0) -> bool:
    """Whether pt lies in the convex polygon, at least `margin` from its edges."""
    return _depth(poly, pt) >= margin


def _depth(poly, pt) -> float:
    """Distance from pt to the nearest edge line of a convex polygon (negative outside)."""
    return _depth_in(_lines(poly), pt)


def _lines(poly) -> list:
    """Each edge of a convex polygon as (nx, ny, c) with n the inward unit normal: depth = nx*x + ny*y - c."""
    s = _orientation(poly)
    out = []
    for a, b in zip(poly, poly[1:] + poly[:1]):
        ex, ey = b[0] - a[0], b[1] - a[1]
        length = math.hypot(ex, ey)
        if length > 1e-9:
            nx, ny = -s * ey / length, s * ex / length
            out.append((nx, ny, nx * a[0] + ny * a[1]))
    return out


def _depth_in(lines, pt) -> float:
    x, y = pt
    return min(nx * x + ny * y - c for nx, ny, c in lines)


def _orientation(poly) -> float:
    return 1.0 if sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(poly, poly[1:] + poly[:1])) > 0 else -1.0


def pole(poly) -> tuple[tuple[float, float], float]:
    """The point deepest inside a convex polygon and its depth (the largest circle that fits)."""
    lines = _lines(poly)
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    best, depth = (sum(xs) / len(xs), sum(ys) / len(ys)), -math.inf
    step = max(max(xs) - min(xs), max(ys) - min(ys)) / 8
    cx, cy = best
    for _ in range(5):
        for i in range(-4, 5):
            for j in range(-4, 5):
                pt = (cx + i * step, cy + j * step)
                d = _depth_in(lines, pt)
                if d > depth:
                    best, depth = pt, d
        cx, cy = best
        step /= 3
    return best, depth


def power_center(p, wp, q, wq, r, wr):
    """The point of equal power to three sites: where their three cells meet."""
    n1x, n1y, c1 = _bisector(p, wp, q, wq)
    n2x, n2y, c2 = _bisector(p, wp, r, wr)
    det = n1x * n2y - n1y * n2x
    return ((c1 * n2y - c2 * n1y) / det, (n1x * c2 - n2x * c1) / det)


@lru_cache(maxsize=1)
def map_data() -> dict:
    """The tuned sites and weights (board percent, squared map units), kept beside the board data."""
    return json.loads(resources.files("companion.game").joinpath("data/board-map.json").read_text("utf-8"))


def lake_of(site: str) -> str:
    """An L-shaped lake is two water cells: 'lake-east' and 'lake-east/2' are both the east lake."""
    return site.split("/")[0]


def sites_from(data: dict) -> tuple[dict, dict]:
    sites = {k: (v[0] * W / 100, v[1] * H / 100) for k, v in data["sites"].items()}
    return sites, dict(data.get("weights", {}))


def _clip_labeled(poly, nx, ny, c, label):
    """_clip that remembers, for each vertex, which site's bisector the edge leaving it lies on."""
    out = []
    for i, (p, lp) in enumerate(poly):
        q, _ = poly[(i + 1) % len(poly)]
        dp, dq = nx * p[0] + ny * p[1] - c, nx * q[0] + ny * q[1] - c
        if dp <= 0:
            out.append((p, lp))
        if (dp < 0) != (dq < 0) and dp != dq:
            s = dp / (dp - dq)
            x = (p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1]))
            out.append((x, label if dp <= 0 else lp))
    return out


def borders(sites: dict, weights: dict, near=None) -> tuple[dict, dict]:
    """Gap-free cells and, for each pair of sites whose cells meet along a line, that common edge."""
    land, edges = {}, {}
    box = [(EDGE, EDGE), (W - EDGE, EDGE), (W - EDGE, H - EDGE), (EDGE, H - EDGE)]
    for i, p in sites.items():
        poly = [(v, None) for v in box]
        for j in (near[i] if near else sites):
            q = sites[j]
            if j != i:
                nx, ny, c = _bisector(p, weights.get(i, 0.0), q, weights.get(j, 0.0))
                poly = _clip_labeled(poly, nx, ny, c, j)
                if not poly:
                    break
        land[i] = [v for v, _ in poly]
        for k, (v, label) in enumerate(poly):
            if label is not None:
                w = poly[(k + 1) % len(poly)][0]
                key = frozenset((i, label))
                if math.dist(v, w) > math.dist(*edges.get(key, ((0, 0), (0, 0)))):
                    edges[key] = (v, w)
    return land, edges


# What a neighborhood holds, in map units: its number, its kind's icon, a token, and a bid or a building.
LABEL_W, LABEL_H, ICON, TOKEN, PIECE = 48.0, 22.0, 22.0, 34.0, 44.0
LABEL_FONT = 24.0
ROOM = 3.0                    # every box stays this far inside its shape
STATUE_R, BRIDGE_W, BRIDGE_OVER = 12.0, 12.0, 9.0


def _templates(token: bool, icon: bool = True):
    """Arrangements of the boxes around an anchor, as {part: (cx, cy, w, h)} at scale 1."""
    out = [_drop_icon(t) for t in _templates_with_icon(token)] if not icon else _templates_with_icon(token)
    return out


def _drop_icon(tpl):
    """A cramped shape keeps its number and its colour; the kind's icon goes, the label moves to the middle."""
    out = {k: v for k, v in tpl.items() if k != "icon"}
    lx, ly, lw, lh = out["label"]
    ix = tpl["icon"][0]
    out["label"] = ((lx + ix) / 2 if abs(tpl["icon"][1] - ly) < 1 and abs(ix - lx) < ICON + LABEL_W else lx, ly, lw, lh)
    return out


def _templates_with_icon(token: bool):
    head = ICON + 2 + LABEL_W
    lower = [("token", TOKEN), ("piece", PIECE)] if token else [("piece", PIECE)]
    row = sum(s for _, s in lower) + 6 * (len(lower) - 1)
    out = []
    for flip in (1, -1):                      # name above the pieces, or below them
        tall = LABEL_H + 4 + PIECE
        top, bottom = -flip * (tall / 2 - LABEL_H / 2), flip * (tall / 2 - PIECE / 2)
        parts = {"icon": (-head / 2 + ICON / 2, top, ICON, ICON), "label": (head / 2 - LABEL_W / 2, top, LABEL_W, LABEL_H)}
        x = -row / 2
        for name, size in lower:
            parts[name] = (x + size / 2, bottom, size, size)
            x += size + 6
        out.append(parts)
    tall = LABEL_H + sum(4 + s for _, s in lower)  # a column, for narrow shapes
    y = -tall / 2
    parts = {"icon": (-head / 2 + ICON / 2, y + LABEL_H / 2, ICON, ICON), "label": (head / 2 - LABEL_W / 2, y + LABEL_H / 2, LABEL_W, LABEL_H)}
    y += LABEL_H
    for name, size in lower:
        parts[name] = (0.0, y + 4 + size / 2, size, size)
        y += 4 + size
    out.append(parts)
    x = -(row + 6 + head) / 2                      # a row, for flat shapes
    parts = {}
    for name, size in lower:
        parts[name] = (x + size / 2, 0.0, size, size)
        x += size + 6
    parts["icon"] = (x + ICON / 2, 0.0, ICON, ICON)
    parts["label"] = (x + ICON + 2 + LABEL_W / 2, 0.0, LABEL_W, LABEL_H)
    out.append(parts)
    return out


def _blocked(parts, obstacles) -> bool:
    for cx, cy, w, h in parts.values():
        for ox, oy, r in obstacles:
            if math.hypot(max(abs(ox - cx) - w / 2, 0.0), max(abs(oy - cy) - h / 2, 0.0)) < r + 1:
                return True
    return False


def _anchors(poly, tpl, scale):
    """Where an arrangement's anchor may go so every box stays ROOM inside the convex shape: a convex region."""
    s = _orientation(poly)
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    region = [(min(xs), min(ys)), (max(xs), min(ys)), (max(xs), max(ys)), (min(xs), max(ys))]
    for a, b in zip(poly, poly[1:] + poly[:1]):
        ex, ey = b[0] - a[0], b[1] - a[1]
        length = math.hypot(ex, ey)
        if length < 1e-9:
            continue
        nx, ny = -s * ey / length, s * ex / length          # inward
        need = max(ROOM + nx * a[0] + ny * a[1] - scale * (nx * cx + ny * cy) + scale * (abs(nx) * w + abs(ny) * h) / 2
                   for cx, cy, w, h in tpl.values())
        region = _clip(region, -nx, -ny, -need)
        if len(region) < 3:
            return []
    return region


def arrange(poly, token: bool, obstacles=()) -> dict:
    """Where a neighborhood's label, icon, token and piece go: the largest arrangement that fits, with the most room."""
    tries = [(scale, True) for scale in (1.0, 0.92, 0.84, 0.76)] + [(scale, False) for scale in (0.84, 0.76, 0.68, 0.6, 0.52)]
    for scale, icon in tries + [(0.52, None), (0.45, None)]:   # None: cramped, let a statue or bridge end overlap
        if icon is None:
            icon, obstacles = False, ()
        best, room = None, -math.inf
        for tpl in _templates(token, icon):
            region = _anchors(poly, tpl, scale)
            if not region:
                continue
            (ax, ay), depth = pole(region)
            if depth <= room:
                continue
            for (x, y), d in _candidates(region, (ax, ay), depth):
                if d < 0 or d <= room:
                    break
                parts = {k: (x + scale * cx, y + scale * cy, scale * w, scale * h) for k, (cx, cy, w, h) in tpl.items()}
                if not _blocked(parts, obstacles):
                    best, room = parts, d
                    break
        if best:
            return {"scale": scale, **best}
    # No room anywhere (the smallest blind alleys): the number at the deepest point, a piece beside it, both small.
    (px, py), depth = pole(poly)
    lines = _lines(poly)
    far = max(((x, y) for x in _frange(px - 60, px + 60, 2) for y in _frange(py - 60, py + 60, 2)
               if _depth_in(lines, (x, y)) >= 6), key=lambda p: math.dist(p, (px, py)), default=(px, py))
    dx, dy = far[0] - px, far[1] - py
    k = 0.45
    return {"scale": k, "cramped": True, "label": (px - dx * 0.3, py - dy * 0.3, k * LABEL_W, k * LABEL_H),
            "piece": (px + dx * 0.6, py + dy * 0.6, k * PIECE, k * PIECE)}


def _candidates(region, at, depth):
    """The region's deepest point first, then (only if that one is blocked) a grid of others, deepest first."""
    yield at, depth
    lines = _lines(region)
    xs, ys = [p[0] for p in region], [p[1] for p in region]
    step = max(2.0, max(max(xs) - min(xs), max(ys) - min(ys)) / 12)
    yield from sorted((((x, y), _depth_in(lines, (x, y))) for x in _frange(min(xs), max(xs), step)
                       for y in _frange(min(ys), max(ys), step)), key=lambda c: -c[1])


def _frange(lo, hi, step):
    x = lo
    while x <= hi:
        yield x
        x += step

COMPASS = 50.0               # the strip above a portrait map that says where north is


def _turn(portrait: bool):
    """Board units to map units: a portrait map is the board turned a quarter clockwise (north to the right)."""
    return (lambda p: (H - p[1], p[0] + COMPASS)) if portrait else (lambda p: (p[0], p[1]))


def _path(poly) -> str:
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in poly) + "Z"


@lru_cache(maxsize=1)
def _geometry():
    """The cells in board units, once for both orientations."""
    raw = board_data()
    rel = relation(raw)
    sites, weights = sites_from(map_data())
    near = _nearest(sites, 24)
    _, edges = borders(sites, weights, near)
    return raw, rel, sites, weights, cells(sites, weights, rel, near=near), cells(sites, weights, rel, street=0.0, near=near), edges


@lru_cache(maxsize=2)
def board_map(portrait: bool = False) -> dict:
    """Everything the SVG needs: shapes, streets, lakes, bridges, statues and where each piece goes."""
    raw, rel, sites, weights, shapes, land, edges = _geometry()
    turn = _turn(portrait)
    bridges = []
    for pair, kind in sorted(rel.items(), key=lambda kv: sorted(kv[0])):
        if kind != "bridge":
            continue
        a, b = sorted(pair)
        if pair in edges:
            (x1, y1), (x2, y2) = edges[pair]
        else:                                   # mis-tuned sites: a bridge anyway, which the tests will flag
            (ax, ay), (bx, by) = sites[a], sites[b]
            x1, y1, x2, y2 = (ax + bx) / 2 - (by - ay), (ay + by) / 2 + (bx - ax), (ax + bx) / 2, (ay + by) / 2
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        nx, ny = y2 - y1, x1 - x2
        length = math.hypot(nx, ny)
        nx, ny = nx / length, ny / length
        if nx * (sites[b][0] - sites[a][0]) + ny * (sites[b][1] - sites[a][1]) < 0:
            nx, ny = -nx, -ny
        reach = WATER + BRIDGE_OVER
        ends = [turn((mx - nx * reach, my - ny * reach)), turn((mx + nx * reach, my + ny * reach))]
        bridges.append({"a": a, "b": b, "x1": ends[0][0], "y1": ends[0][1], "x2": ends[1][0], "y2": ends[1][1]})
    statues = []
    for s in raw["statues"]:
        a, b, c = s["neighborhoods"]
        x, y = turn(power_center(sites[a], weights.get(a, 0.0), sites[b], weights.get(b, 0.0), sites[c], weights.get(c, 0.0)))
        statues.append({"id": s["id"], "of": " ".join(s["neighborhoods"]), "x": x, "y": y})
    obstacles = [(s["x"], s["y"], STATUE_R) for s in statues]
    for br in bridges:
        for t in (0.0, 1.0):
            obstacles.append((br["x1"] + t * (br["x2"] - br["x1"]), br["y1"] + t * (br["y2"] - br["y1"]), BRIDGE_W / 2))
    hoods = []
    for n in raw["neighborhoods"]:
        poly = [turn(p) for p in shapes[n["id"]]]
        x0, y0, x1, y1 = min(p[0] for p in poly), min(p[1] for p in poly), max(p[0] for p in poly), max(p[1] for p in poly)
        near_by = [o for o in obstacles if x0 - o[2] <= o[0] <= x1 + o[2] and y0 - o[2] <= o[1] <= y1 + o[2]]
        spots = arrange(poly, n["token_eligible"], near_by)
        hoods.append({"id": n["id"], "district": n["district"], "kind": n["kind"], "blind": n["blind_alley"],
                      "path": _path(poly), "land": _path([turn(p) for p in land[n["id"]]]), "spots": spots})
    lakes = [{"id": lake_of(k), "path": _path([turn(p) for p in land[k]])} for k in sites if k.startswith("lake")]
    w, h = (H, W + COMPASS) if portrait else (W, H)
    return {"w": int(w), "h": int(h), "top": COMPASS if portrait else 0, "portrait": portrait, "font": LABEL_FONT, "hoods": hoods, "lakes": lakes,
            "bridges": bridges, "statues": statues}


# The table screen is read from a metre or two: a number smaller than this (map units) is drawn beside its shape, in
# water where there is room, on a white tag with a line to the shape (the five smallest: C01, C09, N07, E04, S01).
CALLOUT_BELOW, CALLOUT_FONT, CALLOUT_REACH = 14.0, 17.0, 80.0
# The phone's map is tapped by a thumb: a shape with no room for a circle this wide (map units) gets a square tag
# beside it that takes the tap, wide enough to hold a 24 px square on the whole board at 320 px (0.46 px a unit) and a
# 44 px one once the map zooms to a call (issue 30): those five, C04 and C10 (N06's finds no room; its halo does).
THUMB_BELOW, THUMB_TAG, THUMB_FONT, THUMB_REACH = 72.0, 58.0, 28.0, 140.0


def _meets(a, b, gap=0.0) -> bool:
    return abs(a[0] - b[0]) * 2 < a[2] + b[2] + 2 * gap and abs(a[1] - b[1]) * 2 < a[3] + b[3] + 2 * gap


def callouts(m: dict, thumb: bool = False) -> dict:
    """Where each too-small number goes on the table map (or each too-small shape's tag on the phone's, `thumb`): the
    nearest spot mostly over water, covering no other number, icon, token, piece, statue or bridge end, and never
    another callout."""
    shapes = {n["id"]: polygon_of(n["path"]) for n in m["hoods"]}
    if thumb:
        small = {i for i, sh in shapes.items() if 2 * pole(sh)[1] < THUMB_BELOW}
        reach_max = THUMB_REACH
    else:
        small = {n["id"] for n in m["hoods"] if n["spots"]["scale"] * m["font"] < CALLOUT_BELOW}
        reach_max = CALLOUT_REACH
    top = m["top"]
    taken = [n["spots"][k] for n in m["hoods"] for k in ("label", "icon", "token", "piece")
             if n["spots"].get(k) and not (k == "label" and n["id"] in small)]
    round_ = [(o["x"], o["y"], STATUE_R) for o in m["statues"]] + \
             [(b[f"x{i}"], b[f"y{i}"], BRIDGE_W / 2) for b in m["bridges"] for i in (1, 2)]
    out = {}
    # the smallest shapes choose first (the table's order is the board's)
    for n in sorted(m["hoods"], key=lambda n: pole(shapes[n["id"]])[1]) if thumb else m["hoods"]:
        if n["id"] not in small:
            continue
        own, (px, py) = shapes[n["id"]], pole(shapes[n["id"]])[0]
        w, h = (THUMB_TAG, THUMB_TAG) if thumb else (0.68 * CALLOUT_FONT * len(n["id"]) + 8, CALLOUT_FONT + 6)
        reach = reach_max + w
        others = [_lines(sh) for o, sh in shapes.items() if o != n["id"] and
                  any(abs(x - px) < reach and abs(y - py) < reach for x, y in sh)]
        mine_lines = _lines(own)
        best, score = None, math.inf
        for x in _frange(px - reach_max, px + reach_max, 3.0):
            for y in _frange(py - reach_max, py + reach_max, 3.0):
                d = math.hypot(x - px, y - py)
                box = (x, y, w, h)
                if d < 20 or d > reach_max or d * 1.0 >= score or not (EDGE + w / 2 <= x <= m["w"] - EDGE - w / 2) \
                        or not (top + EDGE + h / 2 <= y <= m["h"] - EDGE - h / 2):
                    continue
                if any(_meets(box, t, 2.0) for t in taken) or any(_meets(box, (ox, oy, 2 * r, 2 * r), 1.0)
                                                                  for ox, oy, r in round_):
                    continue
                points = [(x + i * w / 4, y + j * h / 2) for i in range(-2, 3) for j in (-1, 0, 1)]
                land = sum(any(_depth_in(ls, q) >= 0 for ls in others) for q in points)
                mine = sum(_depth_in(mine_lines, q) >= 0 for q in points)
                total = d + 40.0 * land + 12.0 * mine
                if total < score:
                    best, score = box, total
        if best:
            out[n["id"]] = {"box": best, "to": (px, py)}
            taken.append(best)
    return out


def core(poly: list, step: float = 2.0) -> list:
    """The largest axis-aligned square inside the shape [centre x, centre y, side] (map units, on a `step` grid): the
    phone's touch target where the screen draws it at least a thumb wide (static/map.js `targets`)."""
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    x0, y0 = min(xs), min(ys)
    cols, rows = int((max(xs) - x0) / step) + 1, int((max(ys) - y0) / step) + 1
    edges = list(zip(poly[-1:] + poly[:-1], poly))
    best, prev = (0, 0, 0), [0] * cols
    for r in range(rows):
        y = y0 + (r + 0.5) * step
        cuts = sorted(ax + (y - ay) * (bx - ax) / (by - ay) for (ax, ay), (bx, by) in edges if (ay > y) != (by > y))
        spans = list(zip(cuts[::2], cuts[1::2]))
        cur = [0] * cols
        for c in range(cols):
            xl, xr = x0 + c * step, x0 + (c + 1) * step
            if any(a <= xl and xr <= b for a, b in spans):
                cur[c] = 1 + (min(cur[c - 1], prev[c], prev[c - 1]) if c and r else 0)
                if cur[c] > best[0]:
                    best = (cur[c], c, r)
        prev = cur
    k, c, r = best
    return [_r(x0 + (c + 1 - k / 2) * step), _r(y0 + (r + 1 - k / 2) * step), _r(k * step - step)]


def polygon_of(path: str) -> list:
    """The points of one of our own M..L..Z paths."""
    return [tuple(float(v) for v in pair.split(",")) for pair in path[1:-1].split("L")]


WRITE = "python -m tools.boardmap --write"
STATUE_BOX = 24.0             # the statue symbol's width and height on the map


def _r(v: float) -> float:
    """A map coordinate as the SVG prints it: to a tenth of a unit (as Jinja's round(1) did)."""
    return round(v, 1)


def drawing(portrait: bool = False) -> dict:
    """board_map() as the SVG uses it: rounded, boxes as corners and sizes, nothing left to compute while serving."""
    m = board_map(portrait)
    out_of_shape = callouts(m, thumb=portrait)
    font = THUMB_FONT if portrait else CALLOUT_FONT
    hoods = []
    for n in m["hoods"]:
        s = n["spots"]
        hood = {"id": n["id"], "district": n["district"], "kind": n["kind"], "blind": n["blind"], "path": n["path"],
                "land": n["land"], "label": [_r(s["label"][0]), _r(s["label"][1])], "size": _r(m["font"] * s["scale"]),
                "piece": [_r(v) for v in s["piece"][:3]]}
        if portrait:   # the phone's touch target where the screen draws the shape large enough (issue 37)
            hood["core"] = core(polygon_of(n["path"]))
        if n["id"] in out_of_shape:
            (x, y, w, h), to = out_of_shape[n["id"]]["box"], out_of_shape[n["id"]]["to"]
            if portrait:   # its number inside, where the screen draws the shape large (static/map.js `tags`)
                hood["own"] = hood["label"] + [hood["size"]]
            hood.update(label=[_r(x), _r(y)], size=font, tag=[_r(x - w / 2), _r(y - h / 2), _r(w), _r(h)],
                        leader=[_r(to[0]), _r(to[1])])
        if s.get("icon"):
            x, y, w, h = s["icon"]
            hood["icon"] = [_r(x - w / 2), _r(y - h / 2), _r(w), _r(h)]
        if s.get("token"):
            hood["token"] = [_r(v) for v in s["token"][:3]]
        hoods.append(hood)
    return {"w": m["w"], "h": m["h"], "top": m["top"], "portrait": portrait, "hoods": hoods, "lakes": m["lakes"],
            "bridges": [{"a": b["a"], "b": b["b"], **{k: _r(b[k]) for k in ("x1", "y1", "x2", "y2")}} for b in m["bridges"]],
            "statues": [{"id": s["id"], "of": s["of"], "left": _r(s["x"] - STATUE_BOX / 2), "top": _r(s["y"] - STATUE_BOX / 2)}
                        for s in m["statues"]]}


def render() -> str:
    """The text of the shipped drawing: both orientations, one shape per line so a retuning reads as a diff."""
    def dump(v):
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    out = ["{", dump("about") + ":" + dump(f"The map as served, both orientations; written by `{WRITE}` from "
                                           "board-map.json and the board data, checked by tests/test_boardmap.py") + ","]
    for n, (name, portrait) in enumerate((("table", False), ("phone", True))):
        d = drawing(portrait)
        out.append(dump(name) + ":{" + ",".join(dump(k) + ":" + dump(d[k]) for k in ("w", "h", "top", "portrait")) + ",")
        for m, key in enumerate(("hoods", "lakes", "bridges", "statues")):
            out.append(dump(key) + ":[")
            out.append(",\n".join(dump(item) for item in d[key]))
            out.append("]" + ("," if m < 3 else ""))
        out.append("}" + ("," if n == 0 else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    """--write: recompute the drawing and write it beside board-map.json; --check: say whether the shipped one is current."""
    path = Path(__file__).resolve().parent.parent / "companion" / "game" / DRAWN
    text = render()
    if argv == ["--write"]:
        path.write_text(text, "utf-8")
        print(f"wrote {path} ({len(text.encode())} bytes)")
        return 0
    if argv == ["--check"]:
        current = path.exists() and path.read_text("utf-8") == text
        print(f"{path} is {'current' if current else f'out of date: run `{WRITE}`'}")
        return 0 if current else 1
    print(f"usage: {WRITE} | python -m tools.boardmap --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
