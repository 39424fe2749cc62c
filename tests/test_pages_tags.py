"""The phone's map under a thumb, its tags and its touch targets (issue 37), in Chromium, WebKit and Gecko at 320x568
(and Chromium at 390x844), measured from rectangles on the rendered page (no pixel scan).

On this phone's outbid turn every legal shape has a touch target (WCAG 2.5.5: at least 44 x 44 CSS px) zoomed to the
call, and on the whole board wherever there is room (at 390 px for every one; at 320 px a shape without room keeps its
own drawing and is one tap away on the zoomed call): a rectangle every point of which picks that shape
(document.elementFromPoint, as a tap), no two legal shapes' targets overlapping, none over another legal shape, and a
real tap at its centre opens that shape's value sheet. A small shape's number stands on a tag beside it: no tag ever
lies over a legal shape (the outlines are the page's own, the intersection computed here exactly), and a tag is drawn
only where the shape is small on screen. A tap on any shape's spot or middle, legal or not, names that shape: no
target or moved tag covers it.

The opening turn's whole board, every one of the 55 shapes legal (at 320 px a unit is 0.46 px and 55 squares of 44 px
would take 72% of the board): Zoom in magnifies the board, which then scrolls in the map's box, until every shape has
its 44 px target."""
from __future__ import annotations

import json

import pytest

from engines import phone as make_phone
from engines import wait_live
from pages_helpers import SHOTS, driver
from server_helpers import Phone, create_game
from test_pages_thumb import BID, JOIN, PICKED, SHOWN, act, dist, new_turn, outline_rings
from tools import boardmap

THUMB = 44
ENGINES = ["chromium", "webkit", "gecko"]

# Each legal shape's touch target as the page marks it (its rectangle on the screen), what a tap at a 5 x 5 grid of
# points inside it picks (the neighborhood the element there names), the tags shown (their boxes on the screen) and
# the map's transform (to bring the outlines, in map units, to the screen).
TARGETS_JS = """(legal) => {
  scrollTo(0, 0);
  const svg = document.getElementById('map'), m = svg.getScreenCTM(), box = svg.getBoundingClientRect();
  const names = (x, y) => { const e = document.elementFromPoint(x, y), g = e && e.closest && e.closest('[data-nb]');
    return g && svg.contains(g) ? g.getAttribute('data-nb') : null; };
  const out = {targets: {}, tags: [], inside: [], ctm: [m.a, m.b, m.c, m.d, m.e, m.f], map: [box.left, box.top, box.right, box.bottom],
               screen: [document.documentElement.clientWidth, innerHeight]};
  legal.forEach(nb => {
    const t = svg.querySelector('.target[data-nb="' + nb + '"]');
    if (!t) { out.targets[nb] = null; return; }
    const r = t.getBoundingClientRect(), hits = [];
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) {
      const x = r.left + 1 + (r.width - 2) * i / 4, y = r.top + 1 + (r.height - 2) * j / 4;
      hits.push(names(x, y));
    }
    out.targets[nb] = {rect: [r.left, r.top, r.right, r.bottom], hits: hits};
  });
  svg.querySelectorAll('.callout').forEach(c => {
    const t = c.querySelector('.calltag'), s = getComputedStyle(c);
    if (s.display === 'none' || s.visibility === 'hidden' || getComputedStyle(t).display === 'none') return;
    const r = t.getBoundingClientRect();
    if (r.width > 0) out.tags.push([c.getAttribute('data-callout-of'), [r.left, r.top, r.right, r.bottom]]);
    else { const n = c.querySelector('.nid').getBoundingClientRect(); out.inside.push([c.getAttribute('data-callout-of'), [n.left + n.width / 2, n.top + n.height / 2]]); }
  });
  // Every shape's spot (where its piece stands) and middle (its outline's box's centre), legal or not, and four
  // points a finger's breadth (4 px) around each: what a tap there names. Only points on the map's visible part.
  const vx0 = Math.max(box.left, 0), vy0 = Math.max(box.top, 0), vx1 = Math.min(box.right, out.screen[0]), vy1 = Math.min(box.bottom, out.screen[1]);
  out.spots = [];
  svg.querySelectorAll('.nb[data-nb]').forEach(g => {
    if (g.classList.contains('off')) return;
    const nb = g.getAttribute('data-nb'), c = g.querySelector('.cell').getBoundingClientRect();
    const pt = svg.createSVGPoint(); pt.x = +g.dataset.x; pt.y = +g.dataset.y;
    const s = pt.matrixTransform(m);
    [['spot', s.x, s.y], ['middle', c.left + c.width / 2, c.top + c.height / 2]].forEach(([what, x, y]) => {
      [[0, 0], [4, 0], [-4, 0], [0, 4], [0, -4]].forEach(([dx, dy]) => {
        const px = x + dx, py = y + dy;
        if (px > vx0 + 1 && px < vx1 - 1 && py > vy0 + 1 && py < vy1 - 1) out.spots.push([nb, what, dx || dy ? 'near' : 'at', px, py, names(px, py)]);
      });
    });
  });
  return out;
}"""
OUTLINES = "() => Object.fromEntries([...document.querySelectorAll('#map path.cell[data-nb]')].map(p => [p.dataset.nb, p.getAttribute('d')]))"


def on_screen(rings: list, ctm: list) -> list:
    a, b, c, d, e, f = ctm
    return [[(a * x + c * y + e, b * x + d * y + f) for x, y in r] for r in rings]


def rect_meets_polygon(rect, rings) -> bool:
    """Whether the rectangle (left, top, right, bottom) and the polygon (rings, even-odd) share any area: a vertex of
    one inside the other, or two edges crossing."""
    x0, y0, x1, y1 = rect

    def inside_poly(x, y):
        c = False
        for r in rings:
            for (ax, ay), (bx, by) in zip(r[-1:] + r[:-1], r):
                if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                    c = not c
        return c

    def cross(p, q, r, s):
        def o(a, b, c):
            v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
            return (v > 1e-9) - (v < -1e-9)
        return o(p, q, r) * o(p, q, s) < 0 and o(r, s, p) * o(r, s, q) < 0

    if any(x0 < x < x1 and y0 < y < y1 for r in rings for x, y in r):
        return True
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    if any(inside_poly(x, y) for x, y in [((x0 + x1) / 2, (y0 + y1) / 2)] + corners):
        return True
    sides = list(zip(corners, corners[1:] + corners[:1]))
    return any(cross(p, q, a, b) for r in rings for a, b in zip(r[-1:] + r[:-1], r) for p, q in sides)


SMALL = 40     # px: a shape whose largest inner square is at least this wide on screen carries its own number
CORES: dict = {}


def core_of(p, nb: str) -> float:
    """The side of the largest axis-aligned square inside the shape, in map units (tools/boardmap.py's own measure)."""
    if nb not in CORES:
        d = p.js("nb => document.querySelector('#map path.cell[data-nb=\"' + nb + '\"]').getAttribute('d')", nb)
        CORES[nb] = boardmap.core(boardmap.polygon_of(d))[2]
    return CORES[nb]


def overlap(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def check_screen(p, where: str, figures: dict, every: bool = True) -> dict:
    """Every legal shape's target (size, hits, no overlap) and every tag (over no legal shape) on this screen; `every`
    False (the whole board, zoomable to the call): a shape may have no target where there is no room for one, its spot
    still its own."""
    legal = sorted(p.js("() => window.__phone.view.legal.neighborhoods"))
    got = p.js(TARGETS_JS, legal)
    outlines = {nb: on_screen(outline_rings(d), got["ctm"]) for nb, d in p.js(OUTLINES).items()}
    problems = []
    sizes = {}
    for nb in legal:
        t = got["targets"][nb]
        if t is None:
            if every:
                problems.append(f"{nb}: no touch target")
            continue
        x0, y0, x1, y1 = t["rect"]
        sizes[nb] = round(min(x1 - x0, y1 - y0), 1)
        if x1 - x0 < THUMB - 0.01 or y1 - y0 < THUMB - 0.01:
            problems.append(f"{nb}: target {x1 - x0:.1f} x {y1 - y0:.1f} px")
        if not (x0 >= got["map"][0] - 0.5 and x1 <= min(got["map"][2], got["screen"][0]) + 0.5 and y0 >= max(0, got["map"][1]) - 0.5):
            problems.append(f"{nb}: target {t['rect']} outside the map {got['map']}")
        wrong = [h for h in t["hits"] if h != nb]
        if wrong:
            problems.append(f"{nb}: target points pick {sorted(set(map(str, wrong)))}")
    rects = {nb: got["targets"][nb]["rect"] for nb in legal if got["targets"][nb]}
    for i, a in enumerate(legal):
        for b in legal[i + 1:]:
            if a in rects and b in rects and overlap(rects[a], rects[b]):
                problems.append(f"targets of {a} and {b} overlap")
    for nb, rect in rects.items():   # a tap on a legal shape's drawing is always that shape's
        over = [o for o in legal if o != nb and rect_meets_polygon(rect, outlines[o])]
        if over:
            problems.append(f"{nb}'s target lies over legal {over}")
    # No room for every target (the whole board at 320 px): no targets, the zoomed call one tap away, and its tags too
    # over no legal shape (C01's drawn tag lay over legal C09 after C08: map-fit.js moves it beside C01).
    for of, rect in got["tags"]:
        over = [nb for nb in legal if nb != of and rect_meets_polygon(rect, outlines[nb])]
        if over:
            problems.append(f"{of}'s tag lies over legal {over}")
    # A tag only where its shape is small on screen (its largest inner square narrower than SMALL px); elsewhere
    # the number inside the shape.
    unit = (got["ctm"][0] ** 2 + got["ctm"][1] ** 2) ** 0.5
    for of, rect in got["tags"]:
        side = core_of(p, of) * unit
        if side >= SMALL:
            problems.append(f"{of}'s tag drawn where the shape is {side:.0f} px wide inside")
    for of, (x, y) in got["inside"]:
        if dist(outlines[of], x, y) > 0:
            problems.append(f"{of}'s number, tag hidden, is not inside its shape")
    # A tap on any shape's spot or middle, legal or not, reaches that shape (its drawing, piece, target or tag), never
    # a neighbour's target or moved tag (a tap on an illegal C09 once reached C04's tag: the wrong refusal).
    for nb, what, how, x, y, named in got["spots"]:
        if named != nb and dist(outlines[nb], x, y) == 0:   # (a middle outside its own shape is no spot of it)
            problems.append(f"a tap {how} {nb}'s {what} ({x:.0f}, {y:.0f}) picks {named}")
    figures[where] = {"smallest target": min(sizes.values()) if sizes else None, "legal": len(legal),
                      "no room (zoom in)": [nb for nb in legal if got["targets"][nb] is None],
                      "tags": [t[0] for t in got["tags"]]}
    assert problems == [], (p.name, where, problems)
    return rects


# What else a tap may have done: the chooser, a refusal.
OTHER = """() => { const w = document.getElementById('which'), t = document.getElementById('tapmsg');
  return (!w.hidden && 'which: ' + w.textContent) || (!t.hidden && t.textContent && 'refused: ' + t.textContent) || ''; }"""


CENTRE = """nb => { scrollTo(0, 0); const r = document.querySelector('#map .target[data-nb="' + nb + '"]').getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2]; }"""


def tap_each(p, rects: dict, only=None) -> None:
    """A real tap at the centre of each legal target opens that shape's value sheet."""
    for nb in sorted(only or rects):
        x, y = p.js(CENTRE, nb)   # as it is now (a sheet opened and closed may have moved the map by a pixel)
        p.click_at(x, y)
        p.wait(f"() => ({PICKED})() || ({OTHER})()", timeout=15)
        assert p.js(PICKED) and p.js(PICKED).endswith(nb), (p.name, nb, x, y, p.js(PICKED), p.js(OTHER))
        p.click("#cancel")
        p.wait("() => document.getElementById('pick').hidden")
        p.js("() => { scrollTo(0, 0); return true; }")


def shot(p, name: str) -> None:
    if SHOTS and p.name == "chromium":
        p.js("() => { scrollTo(0, 0); return true; }")
        p.page.screenshot(path=f"{SHOTS}/{name}.png")


@pytest.fixture(scope="module")
def playwright():
    return driver()


# Red opens on the first, blue outbids on the second (white and gray pass): red's outbid turn, zoomed to the call.
# The shapes one may then bid on include the small ones: C09 and C13; C01; S04 (issue 37 named C01, C09, C13, S04).
CALLS = [("C02", "C08"), ("C05", "C04"), ("C13", "C14")]


def play(p, server, w: int, h: int, figures: dict, calls: list, taps: tuple) -> None:
    """Each call's outbid turn: zoomed, then the whole board; the targets tapped on the screens named in `taps`."""
    size = f"{w}x{h}"
    for opening, target in calls:
        gid, others = new_turn(server, p)
        p.wait(SHOWN, "#turn")
        if opening == CALLS[0][0]:
            shot(p, f"tags-opening-{size}")
        view = others["blue"].view(gid)
        p.js(BID, opening, min(p.js("() => window.__phone.view.legal.neighborhoods")[opening]))
        p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
        view = others["blue"].view(gid)
        act(others, gid, {"bid": target, "value": min(view["legal"]["neighborhoods"][target])})
        act(others, gid, {"pass": True})
        view = act(others, gid, {"pass": True})
        wait_live(p, view["seq"])
        p.wait(SHOWN, "#turn")
        p.wait("() => document.getElementById('map').classList.contains('zoomed')")
        shot(p, f"tags-zoomed-{target}-{size}")
        rects = check_screen(p, f"{size} zoomed {target}", figures)
        if "zoomed" in taps:
            tap_each(p, rects)
        p.click("#whole")
        p.wait("() => !document.getElementById('map').classList.contains('zoomed')")
        shot(p, f"tags-whole-{target}-{size}")
        rects = check_screen(p, f"{size} whole {target}", figures, every=w >= 390)
        if "whole" in taps:
            tap_each(p, rects)


# What each engine plays (a browser's page load and each tap cost seconds): Chromium every call at 320x568, tapping
# every target, and the first at 390x844; WebKit and Gecko two calls at 320x568, tapping the zoomed targets.
PLAN = {"chromium": [((320, 568), CALLS, ("zoomed", "whole")), ((390, 844), CALLS[:1], ())],
        "webkit": [((320, 568), CALLS[:2], ("zoomed",))], "gecko": [((320, 568), CALLS[:2], ("zoomed",))]}


@pytest.mark.parametrize("engine", ENGINES)
def test_every_legal_shape_has_a_44px_target_and_no_tag_lies_over_one(engine, server, playwright):
    """Issue 37: on the outbid turn, zoomed to the call and on the whole board, every legal shape's touch target is at
    least 44 x 44 CSS px, all of it picks that shape, no two overlap, a tap at its centre opens that shape's sheet; no
    tag lies over a legal shape, and a tag is drawn only where its shape is small on screen."""
    figures: dict = {}
    for (w, h), calls, taps in PLAN[engine]:
        p = make_phone(engine, playwright, w, h)
        try:
            p.open(f"{server.origin}/history")
            p.size(w, h)
            play(p, server, w, h, figures, calls, taps)
            assert p.problems() == [], (engine, p.problems())
        finally:
            p.close()
    print(f"\n{engine}: " + json.dumps(figures))


# The opening's whole board, magnified (Zoom in): each shape's target, scrolled into the map's box (a finger's swipe),
# its size, what a tap at 5 x 5 points of it names, and what a tap on the shape's spot names there.
MAGNIFIED_JS = """(legal) => {
  const svg = document.getElementById('map'), wrap = svg.parentNode, out = {};
  const names = (x, y) => { const e = document.elementFromPoint(x, y), g = e && e.closest && e.closest('[data-nb]');
    return g && svg.contains(g) ? g.getAttribute('data-nb') : null; };
  legal.forEach(nb => {
    const t = svg.querySelector('.target[data-nb="' + nb + '"]');
    if (!t) { out[nb] = null; return; }
    t.scrollIntoView({block: 'center', inline: 'center'});
    const r = t.getBoundingClientRect(), w = wrap.getBoundingClientRect(), hits = [];
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) hits.push(names(r.left + 1 + (r.width - 2) * i / 4, r.top + 1 + (r.height - 2) * j / 4));
    const g = svg.querySelector('.nb[data-nb="' + nb + '"]'), pt = svg.createSVGPoint();
    pt.x = +g.dataset.x; pt.y = +g.dataset.y;
    const s = pt.matrixTransform(svg.getScreenCTM());
    out[nb] = {size: [r.width, r.height], seen: r.left >= w.left - 0.5 && r.right <= w.right + 0.5 && r.top >= Math.max(0, w.top) - 0.5 && r.bottom <= Math.min(innerHeight, w.bottom) + 0.5,
               hits: hits, spot: names(s.x, s.y)};
  });
  wrap.scrollTo(0, 0); scrollTo(0, 0);
  return out;
}"""


SCROLLED_CENTRE = """nb => { const t = document.querySelector('#map .target[data-nb="' + nb + '"]');
  t.scrollIntoView({block: 'center', inline: 'center'}); const r = t.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2]; }"""


@pytest.mark.parametrize("engine", ["chromium"])
def test_the_opening_board_zooms_until_every_shape_has_a_44px_target(engine, server, playwright):
    """Issue 37 ("every legal shape at least 44 px square ... or the whole board is zoomable to it"): on an opening
    every shape is legal and 55 thumb squares do not fit a 320 px board; Zoom in magnifies the board (it scrolls both
    ways in the map's box) until every shape has a target of at least 44 x 44 px that, scrolled into the box, picks that
    shape at every point, its spot too; Whole board puts it back."""
    for w, h in ((320, 568), (390, 844)):
        opening_zooms(engine, server, playwright, w, h)


def opening_zooms(engine, server, playwright, w: int, h: int) -> None:
    p = make_phone(engine, playwright, w, h)
    try:
        p.open(f"{server.origin}/history")
        p.size(w, h)
        gid, others = new_turn(server, p)
        p.wait(SHOWN, "#turn")
        legal = sorted(p.js("() => window.__phone.view.legal.neighborhoods"))
        assert len(legal) == 55 and p.js(SHOWN, "#whole"), (len(legal), "no Zoom in on the opening")
        p.click("#whole")
        p.wait("() => document.querySelector('.mapwrap').classList.contains('magnified')")
        shot(p, f"tags-opening-magnified-{w}x{h}")
        got = p.js(MAGNIFIED_JS, legal)
        problems = [f"{nb}: no target" for nb in legal if got[nb] is None]
        for nb, t in got.items():
            if t is None:
                continue
            if min(t["size"]) < THUMB - 0.01:
                problems.append(f"{nb}: target {t['size'][0]:.1f} x {t['size'][1]:.1f} px")
            if not t["seen"]:
                problems.append(f"{nb}: target not brought into the map's box")
            if set(t["hits"]) != {nb} or t["spot"] != nb:
                problems.append(f"{nb}: target points pick {sorted(set(map(str, t['hits'])))}, its spot {t['spot']}")
        assert problems == [], problems
        for nb in ["N07", "E04", "C09"]:   # the smallest three, tapped for real where a swipe brings them
            x, y = p.js(SCROLLED_CENTRE, nb)
            p.click_at(x, y)
            p.wait(f"() => ({PICKED})() || ({OTHER})()", timeout=15)
            assert (p.js(PICKED) or "").endswith(nb), (nb, x, y, p.js(PICKED), p.js(OTHER))
            p.click("#cancel")
            p.wait("() => document.getElementById('pick').hidden")
        p.click("#whole")
        p.wait("() => !document.querySelector('.mapwrap').classList.contains('magnified')")
        assert p.js("() => document.getElementById('map').getBoundingClientRect().width") <= w
        assert p.problems() == [], p.problems()
    finally:
        p.close()


HINT_JS = """() => { scrollTo(0, 0);
  const h = document.getElementById('first-hint'), t = document.getElementById('first-hint-text'), m = document.getElementById('map');
  const r = h.getBoundingClientRect(), b = m.getBoundingClientRect(), off = document.getElementById('hints-off').getBoundingClientRect();
  const line = parseFloat(getComputedStyle(t).lineHeight) || 1.2 * parseFloat(getComputedStyle(t).fontSize);
  return {shown: !h.hidden && r.height > 0, hint: [r.left, r.top, r.right, r.bottom], map: [b.left, b.top, b.right, b.bottom],
          lines: Math.round(t.getBoundingClientRect().height / line), text: t.textContent, cut: t.scrollWidth > t.clientWidth + 1,
          off: off.width > 0 && off.height > 0, screen: innerHeight}; }"""


def test_the_first_game_hint_never_lies_over_the_map(server, playwright):
    """Issue 37: on the outbid turn of a first game, in French (the longest hint) at 320x568 with a long name in it,
    the hint stays in the dock under the map: folded to one line (a tap unfolds it, with Hide hints), its box never
    meets the map's, and every shape's spot and every legal target still picks its own shape (check_screen)."""
    p = make_phone("chromium", playwright, 320, 568)
    try:
        others = {c: Phone(server, name=n) for c, n in (("red", "Jean-Baptiste Delacroix"), ("white", "White"), ("gray", "Gray"))}
        gid = create_game(others["red"], ["red", "blue", "white", "gray"], removed=[])
        for c, o in others.items():
            assert o.post(f"/api/games/{gid}/seats/{c}", {"name": o.name}).status == 200
        p.open(f"{server.origin}/g/{gid}")
        p.size(320, 568)
        p.js("() => { document.cookie = 'lang=fr; path=/'; return true; }")
        p.open(f"{server.origin}/g/{gid}")
        wait_live(p)
        p.js(JOIN, gid, "blue", "Héloïse Premièrepartie")
        p.wait("() => window.__joined")
        assert others["red"].post(f"/api/games/{gid}/start").status == 200
        seq = others["red"].view(gid)["seq"]   # red opens: this phone's first turn is an outbid
        assert others["red"].post(f"/api/games/{gid}/actions", {"bid": "C02", "value": 2, "expect_seq": seq}).status == 200
        view = others["red"].view(gid)
        assert view["to_act"] == "blue", view["to_act"]
        wait_live(p, view["seq"])
        p.wait(SHOWN, "#first-hint")
        figures: dict = {}
        for unfolded in (False, True):
            got = p.js(HINT_JS)
            assert got["shown"] and "Jean-Baptiste Delacroix" in got["text"], got
            assert not overlap(got["hint"], got["map"]) and got["hint"][3] <= got["screen"], got
            # folded: one line, the rest cut (a tap unfolds it); unfolded: every line and Hide hints
            assert (got["lines"] > 1 and got["off"]) if unfolded else (got["lines"] == 1 and got["cut"] and not got["off"]), got
            shot(p, f"tags-first-hint-{'open' if unfolded else 'folded'}-fr-320x568")
            check_screen(p, f"hint {'open' if unfolded else 'folded'}", figures)
            if not unfolded:
                p.click("#first-hint-text")
                p.wait("() => document.getElementById('first-hint').classList.contains('open')")
        p.size(390, 844)   # and as it looks on a taller phone (unfolded, the whole hint)
        shot(p, "tags-first-hint-open-fr-390x844")
        assert p.problems() == [], p.problems()
    finally:
        p.close()
