"""Reads a served board SVG back into polygons and checks it against the board data: what touches, what is water.

Used by tests/test_boardmap.py and by benchmarks/map_truth.py (which also measures the old Voronoi map)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

STREET_GAP = 6.0 + 0.5       # two neighborhoods this close share a street (boardmap.STREET * 2, plus rounding)
MIN_BORDER = 20.0            # a shared stretch shorter than this is a corner, which the board does not count


@dataclass
class Drawn:
    shapes: dict = field(default_factory=dict)     # neighborhood -> polygon
    lands: list = field(default_factory=list)      # street underlay polygons
    land_of: dict = field(default_factory=dict)    # neighborhood -> its street underlay (where marked)
    lakes: dict = field(default_factory=dict)     # lake -> its water polygons (an L-shaped lake has two)
    bridges: list = field(default_factory=list)    # (a or None, b or None, (x1, y1), (x2, y2))
    statues: list = field(default_factory=list)    # (neighborhoods or None, (x, y))
    labels: dict = field(default_factory=dict)     # neighborhood -> (x, y, font size)
    callouts: dict = field(default_factory=dict)   # neighborhood -> ((x, y, w, h) of its tag, (x, y) its line ends at)
    size: tuple = (0.0, 0.0)


def polygon(d: str) -> list:
    """The points of an M..L..Z path (all the map draws)."""
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(nums[0::2], nums[1::2]))


class _Reader(HTMLParser):
    def __init__(self, svg_id: str):
        super().__init__()
        self.svg_id, self.depth, self.out, self.group_nb = svg_id, 0, Drawn(), None
        self.text_for = None
        self.callout_nb = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id") == self.svg_id and not self.depth:
            self.depth = 1
            _, _, w, h = (float(v) for v in a["viewbox"].split())
            self.out.size = (w, h)
            return
        if not self.depth:
            return
        if tag in ("svg", "g", "symbol", "defs", "pattern", "text"):
            self.depth += 1
        cls = a.get("class", "").split()
        if tag == "g" and "nb" in cls:
            self.group_nb = a.get("data-nb")
        if tag == "path" and "cell" in cls:
            self.out.shapes[a.get("data-nb") or self.group_nb] = polygon(a["d"])
        elif tag == "path" and "land" in cls:
            self.out.lands.append(polygon(a["d"]))
            if a.get("data-land-of"):
                self.out.land_of[a["data-land-of"]] = self.out.lands[-1]
        elif tag in ("path", "ellipse") and "lake" in cls:
            self.out.lakes.setdefault(a.get("data-lake") or len(self.out.lakes), []).append(
                polygon(a["d"]) if tag == "path" else _circle(float(a["cx"]), float(a["cy"]), float(a["rx"])))
        elif tag == "line" and "bridge" in cls:
            ends = a.get("data-bridge", "").split() or [None, None]
            self.out.bridges.append((ends[0], ends[1], (float(a["x1"]), float(a["y1"])), (float(a["x2"]), float(a["y2"]))))
        elif tag == "use" and a.get("href") == "#statue":
            s = float(a["width"]) / 2
            self.out.statues.append((a.get("data-statue", "").split() or None, (float(a["x"]) + s, float(a["y"]) + s)))
        elif tag == "g" and "callout" in cls:
            self.out.callouts[a["data-callout-of"]] = [None, None]
            self.callout_nb = a["data-callout-of"]
        elif tag == "line" and "leader" in cls:
            self.out.callouts[self.callout_nb][1] = (float(a["x2"]), float(a["y2"]))
        elif tag == "rect" and "calltag" in cls:
            self.out.callouts[self.callout_nb][0] = tuple(float(a[k]) for k in ("x", "y", "width", "height"))
        elif tag == "text" and "nid" in cls:
            self.text_for = (float(a["x"]), float(a["y"]), float(a.get("font-size", 17)))

    def handle_data(self, data):
        if self.text_for and data.strip():
            self.out.labels[data.strip()] = self.text_for
            self.text_for = None
        self.callout_nb = None

    def handle_endtag(self, tag):
        if self.depth and tag in ("svg", "g", "symbol", "defs", "pattern", "text"):
            self.depth -= 1
            if tag == "g":
                self.group_nb = None if self.depth < 3 else self.group_nb


def _circle(cx, cy, r, n=24):
    return [(cx + r * math.cos(2 * math.pi * k / n), cy + r * math.sin(2 * math.pi * k / n)) for k in range(n)]


def read(html: str, svg_id: str = "map") -> Drawn:
    r = _Reader(svg_id)
    r.feed(html)
    return r.out


# -- plane geometry --

def _seg_point(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


# Per-polygon figures the checks ask for again and again (each page's shapes are read once and never changed): keyed by
# the polygon's id, holding the polygon itself so the id cannot be reused while the entry lives.
_KNOWN: dict = {}


def _known(poly, what, make):
    entry = _KNOWN.get((id(poly), what))
    if entry is None or entry[0] is not poly:
        entry = _KNOWN[(id(poly), what)] = (poly, make(poly))
    return entry[1]


def _box_of(poly):
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    return min(xs), min(ys), max(xs), max(ys)


def _segments_of(poly):
    """Each edge as (a, b, its box), for skipping the edges that are far from a point before measuring."""
    return [(a, b, min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
            for a, b in zip(poly, poly[1:] + poly[:1])]


def contains(poly, p) -> bool:
    x0, y0, x1, y1 = _known(poly, "box", _box_of)
    if p[1] < y0 or p[1] >= y1 or p[0] < x0 or p[0] > x1:
        return False               # outside the box: no edge crossed, or an even number of them
    inside = False
    for a, b in zip(poly, poly[1:] + poly[:1]):
        if (a[1] > p[1]) != (b[1] > p[1]):
            x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
            if x > p[0]:
                inside = not inside
    return inside


def dist_point(poly, p) -> float:
    """0 inside, else the distance to the polygon's outline."""
    if contains(poly, p):
        return 0.0
    return min(_seg_point(p, a, b) for a, b in zip(poly, poly[1:] + poly[:1]))


def outline(poly, step=1.0):
    """Points every `step` units along a polygon's outline."""
    for a, b in zip(poly, poly[1:] + poly[:1]):
        n = max(1, int(math.dist(a, b) / step))
        for k in range(n):
            yield (a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n)


def distance(p, q) -> float:
    return min(min(dist_point(q, x) for x in p), min(dist_point(p, x) for x in q))


_CELL = 24.0      # the cells closest() files q's outline points in


def _cells_of(points):
    """q's outline points filed by square cell: [(the cell's x0, y0, x1, y1, the indices of its points)]."""
    cells = {}
    for i, (x, y) in enumerate(points):
        cells.setdefault((math.floor(x / _CELL), math.floor(y / _CELL)), []).append(i)
    return [(min(points[i][0] for i in ix), min(points[i][1] for i in ix), max(points[i][0] for i in ix),
             max(points[i][1] for i in ix), ix) for ix in cells.values()]


def closest(p, q):
    """The closest pair of points (one on each outline), sampled along both outlines.

    The same pair as measuring every point of p against every point of q, in that order (the first of equally close
    pairs): q's points are filed in cells, and for each point of p only the cells whose box lies no farther than the
    best pair so far along either axis are measured."""
    ys = _known(q, "outline2", lambda poly: list(outline(poly, 2.0)))
    cells = _known(q, "cells2", lambda poly: _cells_of(ys))
    best = (math.inf, None, None)
    for x in _known(p, "outline2", lambda poly: list(outline(poly, 2.0))):
        px, py = x
        d_here, i_here, b = math.inf, -1, best[0]
        for x0, y0, x1, y1, ix in cells:
            if x0 - px > b or px - x1 > b or y0 - py > b or py - y1 > b:
                continue           # every point of this cell is farther than the best so far along one axis
            for i in ix:
                d = math.dist(x, ys[i])
                if d < d_here or d == d_here and i < i_here:
                    d_here, i_here = d, i
        if d_here < best[0]:
            best = (d_here, x, ys[i_here])
    return best


def shared(p, q, gap=STREET_GAP) -> float:
    """How long a stretch of p's outline runs within `gap` of q: their common border.

    As counting p's outline points whose dist_point to q is at most `gap`, skipping the points (and q's edges) whose
    box lies farther than `gap` away before measuring."""
    x0, y0, x1, y1 = _known(q, "box", _box_of)
    x0, y0, x1, y1 = x0 - gap, y0 - gap, x1 + gap, y1 + gap
    segments = _known(q, "segments", _segments_of)
    n = 0
    for x in _known(p, "outline1", lambda poly: list(outline(poly, 1.0))):
        px, py = x
        if px < x0 or px > x1 or py < y0 or py > y1:
            continue
        if contains(q, x) or any(_seg_point(x, a, b) <= gap for a, b, sx0, sy0, sx1, sy1 in segments
                                 if not (px < sx0 - gap or px > sx1 + gap or py < sy0 - gap or py > sy1 + gap)):
            n += 1
    return float(n)


def bbox(poly):
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    return min(xs), min(ys), max(xs), max(ys)


# -- the checks --

def relations(board: dict) -> dict:
    return {frozenset((e["a"], e["b"])): "bridge" if e["bridge"] else "street" for e in board["adjacencies"]}


def wrong_pairs(drawn: Drawn, board: dict, near: float = 40.0) -> list[tuple[str, str, str]]:
    """Every neighbor pair the drawing tells wrongly, as (a, b, what is wrong)."""
    rel = relations(board)
    ids = sorted(drawn.shapes)
    boxes = {k: bbox(v) for k, v in drawn.shapes.items()}
    wrong = []
    bridged = {}
    for a, b, p, q in drawn.bridges:
        if a is None:                     # an unlabelled bridge joins the shapes nearest its two ends
            a = min(ids, key=lambda k: dist_point(drawn.shapes[k], p))
            b = min(ids, key=lambda k: dist_point(drawn.shapes[k], q))
        bridged[frozenset((a, b))] = (p, q)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            ba, bb = boxes[a], boxes[b]
            if ba[0] > bb[2] + near or bb[0] > ba[2] + near or ba[1] > bb[3] + near or bb[1] > ba[3] + near:
                if rel.get(frozenset((a, b))):
                    wrong.append((a, b, f"{rel[frozenset((a, b))]} neighbors drawn far apart"))
                continue
            pa, pb = drawn.shapes[a], drawn.shapes[b]
            pair = frozenset((a, b))
            border = max(shared(pa, pb), shared(pb, pa))
            kind = rel.get(pair)
            if kind == "street":
                if border < MIN_BORDER:
                    wrong.append((a, b, f"street neighbors share {border:.0f} units of border"))
            elif border >= MIN_BORDER:
                wrong.append((a, b, ("bridge neighbors" if kind else "not neighbors") + f" yet share {border:.0f} units of street"))
            elif border > 0 and not water_between(drawn, pa, pb, a, b):
                wrong.append((a, b, "shapes meet at a corner with no water between"))
            if kind == "bridge":
                ends = bridged.get(pair)
                if not ends:
                    wrong.append((a, b, "no bridge drawn"))
                elif not (dist_point(drawn.shapes[a], ends[0]) == 0 and dist_point(drawn.shapes[b], ends[1]) == 0 or
                          dist_point(drawn.shapes[b], ends[0]) == 0 and dist_point(drawn.shapes[a], ends[1]) == 0):
                    wrong.append((a, b, "the bridge does not reach both neighborhoods"))
            elif pair in bridged:
                wrong.append((a, b, "a bridge drawn between neighborhoods the board does not join"))
    return wrong


def water_between(drawn: Drawn, pa, pb, a=None, b=None) -> bool:
    """Whether the gap where two shapes come closest holds water (or a third neighborhood), not street all across."""
    d, x, y = closest(pa, pb)
    if d <= 0.5:
        return False
    for k in range(1, 8):
        m = (x[0] + (y[0] - x[0]) * k / 8, x[1] + (y[1] - x[1]) * k / 8)
        if any(dist_point(s, m) == 0 for s in drawn.shapes.values()):
            return True            # a third neighborhood stands between them
        if not any(contains(s, m) for s in drawn.lands):
            return True            # water
    return False                   # street all the way across: drawn as if they met
