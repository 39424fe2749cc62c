"""The phone's map under a thumb (issue 30), in the three engines phones run (Chromium, WebKit, Gecko) at 320x568 and
390x844, measured on the rendered page (tests/thumb.py: document.elementFromPoint on every other pixel of the screen
at scroll 0, the neighborhood each point names, the largest square of points naming the same one).

On this phone's turn the map is the first screen: on an opening turn the whole board, on an outbid turn zoomed to the
call, where the last bid and every neighborhood that may outbid it are hit by a 44 px square with their numbers at
least 14 px and their pieces' numbers at least 12 px, next to the smallest shapes too (after a bid on N06, whose
only blind neighbour is N07; after a bid on C08, beside C09). On every view every neighborhood on the screen is hit
by a 24 px square (WCAG 2.2, 2.5.8). A real tap in the middle of each such square picks that neighborhood."""
from __future__ import annotations

import json

import pytest

from engines import phone as make_phone
from engines import wait_live
from pages_helpers import SHOTS, driver
from server_helpers import Phone, create_game
from thumb import SIZES_JS, SQUARES_JS

ENGINES = ["chromium", "webkit", "gecko"]
SCREENS = [(320, 568), (390, 844)]
STEP = 2            # a point every 2 px: a square of k points in a row is counted as 2 (k - 1) + 1 px, never more
THUMB, FINGER = 44, 24
LABEL, PIECE = 14, 12
# Red opens the call on a neighbour of the target, blue outbids it on the target: red's turn is then to outbid the
# target, with the small shape beside it among the neighborhoods red may bid on.
CASES = {"N06": ("N05", "N07"), "C08": ("C02", "C09")}
REMOVED = ["east", "south"]      # a 2-player game keeps north, west and the center in play

SHOWN = "s => { const e = document.querySelector(s); return !!e && !e.hidden && e.getBoundingClientRect().height > 0; }"
JOIN = """(gid, color, name) => { window.__joined = 0;
  fetch('/api/games/' + gid + '/seats/' + color, {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({name: name})}).then(r => { window.__joined = r.status; }); return true; }"""
BID = """(nb, value) => { window.__phone.post('/actions', {bid: nb, value: value, expect_seq: window.__phone.view.seq}); return true; }"""
# Where each neighborhood's number is on the screen (its tag's, for a shape that has one), inside the map's box or not.
ON_SCREEN = """() => { scrollTo(0, 0); const m = document.getElementById('map').getBoundingClientRect(), out = {};
  const W = Math.min(m.right, document.documentElement.clientWidth), H = Math.min(m.bottom, innerHeight);
  document.querySelectorAll('#map text.nid').forEach(t => { const r = t.getBoundingClientRect(), x = r.left + r.width / 2,
    y = r.top + r.height / 2; out[t.getAttribute('data-label-of')] = x >= Math.max(0, m.left) && x <= W && y >= Math.max(0, m.top) && y <= H; });
  return out; }"""
PICKED = "() => { const s = document.getElementById('pick'); return !s.hidden && document.getElementById('pick-title').textContent; }"


@pytest.fixture(scope="module")
def playwright():
    return driver()   # the process's one Playwright driver


def squares(p, top: bool = True) -> dict:
    """{neighborhood: (side px, centre x, centre y)} at scroll 0 (or where the page is); side counted as 2 (k - 1) + 1
    for k points."""
    if top:
        p.js("() => { scrollTo(0, 0); return true; }")
    got = p.js(SQUARES_JS, STEP)
    assert got["scroll"][1] == 0 or not top, got["scroll"]
    return {nb: (STEP * (k / STEP - 1) + 1, x, y) for nb, (k, x, y) in got["squares"].items()}


def tap_picks(p, nb: str, at) -> None:
    """A real tap in the middle of the square: the value sheet opens for that neighborhood; then Cancel."""
    p.click_at(at[1], at[2])
    p.wait(PICKED)
    title = p.js(PICKED)
    assert title.endswith(nb), (p.name, nb, title)
    p.click("#cancel")
    p.wait("() => document.getElementById('pick').hidden")
    p.js("() => { scrollTo(0, 0); return true; }")


def shot(p, name: str) -> None:
    if SHOTS and p.name == "chromium":
        p.js("() => { scrollTo(0, 0); return true; }")
        p.page.screenshot(path=f"{SHOTS}/{name}.png")


def new_turn(server, p):
    """A 4-player game (every district in play) where this phone sits as red, the start player (the setup's first
    colour); returns (gid, the other seats' clients) at red's opening turn."""
    others = {c: Phone(server, name=c.title()) for c in ("blue", "white", "gray")}
    gid = create_game(others["blue"], ["red", "blue", "white", "gray"], removed=[])
    for c, o in others.items():
        assert o.post(f"/api/games/{gid}/seats/{c}", {"name": c.title()}).status == 200
    p.open(f"{server.origin}/g/{gid}")
    wait_live(p)
    p.js(JOIN, gid, "red", "Zoë")
    p.wait("() => window.__joined")
    assert p.js("() => window.__joined") == 200
    assert others["blue"].post(f"/api/games/{gid}/start").status == 200
    view = others["blue"].view(gid)
    assert view["to_act"] == "red", view["to_act"]
    p.open(f"{server.origin}/g/{gid}")
    wait_live(p, view["seq"])
    return gid, others


def act(others: dict, gid: str, move: dict) -> dict:
    """The seat to act (not this phone's) moves through the API."""
    view = others["blue"].view(gid)
    seat = others[view["to_act"]]
    r = seat.post(f"/api/games/{gid}/actions", dict(move, expect_seq=view["seq"]))
    assert r.status == 200, r
    return others["blue"].view(gid)


def every_finger_fits(p, where: str, only=None, sq=None) -> dict:
    """Every neighborhood on the screen (its number inside the map's box), or each of `only`, hit by a 24 px square
    (`sq`: the squares already measured on this very screen, as the scan is the test's longest part)."""
    sq = sq or squares(p)
    shown = p.js(ON_SCREEN)
    want = only or [nb for nb, inside in shown.items() if inside]
    small = {nb: sq.get(nb, (0,))[0] for nb in want if sq.get(nb, (0,))[0] < FINGER}
    assert small == {}, (p.name, where, small)
    return sq


@pytest.mark.parametrize("engine", ENGINES)
def test_the_map_is_the_turn_screen_and_every_neighborhood_fits_a_thumb(engine, server, playwright):
    figures = {}
    for w, h in SCREENS:
        p = make_phone(engine, playwright, w, h)
        try:
            # WebKitGTK's MiniBrowser sizes its window once a page is open, and is never narrower than about 447 px:
            # there the figures are for that width (wider, so easier) and the height asked for.
            p.open(f"{server.origin}/history")
            p.size(w, h)
            got = p.js("() => [innerWidth, innerHeight]")
            assert got[1] == h and (got[0] == w or engine == "webkit"), (engine, got)
            for target, (opening, small) in CASES.items():
                gid, others = new_turn(server, p)
                size = f"{got[0]}x{got[1]}"
                # The opening turn: the whole board on the first screen.
                p.wait(SHOWN, "#turn")
                top = p.js("() => { const r = document.getElementById('map').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }")
                assert top[0] >= 0 and top[1] <= top[2], (engine, size, top)
                if target == "N06":
                    shot(p, f"phone-turn-opening-{w}x{h}")
                sq = every_finger_fits(p, f"opening {size}", only=sorted(p.js(ON_SCREEN)))
                figures[(size, "opening")] = min(v[0] for v in sq.values())
                # Red opens on the target's neighbour, blue outbids on the target, white and gray pass.
                view = others["blue"].view(gid)
                p.js(BID, opening, min(p.js("() => window.__phone.view.legal.neighborhoods")[opening]))
                p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
                if target == "N06":   # not this phone's turn: the page as it was, the whole map by a 24 px square
                    sq = {}
                    for end in ("true", "false"):   # the map's top, then its bottom, in sight (taller than the screen)
                        p.js(f"() => {{ document.getElementById('map').scrollIntoView({end}); return true; }}")
                        for nb, v in squares(p, top=False).items():
                            sq[nb] = max(sq.get(nb, v), v)
                    small_ones = {nb: v[0] for nb, v in sq.items() if v[0] < FINGER}
                    assert small_ones == {} and len(sq) == 55, (engine, size, small_ones, len(sq))
                    figures[(size, "watching")] = min(v[0] for v in sq.values())
                view = others["blue"].view(gid)
                view = act(others, gid, {"bid": target, "value": min(view["legal"]["neighborhoods"][target])})
                view = act(others, gid, {"pass": True})
                view = act(others, gid, {"pass": True})
                assert view["to_act"] == "red"
                wait_live(p, view["seq"])
                p.wait(SHOWN, "#turn")
                mine = p.js("() => window.__phone.view.legal.neighborhoods")
                assert small in mine, (target, sorted(mine))
                # The outbid turn: zoomed to the call, all on the first screen.
                sq = squares(p)
                near = [target] + sorted(mine)
                thumbs = {nb: sq.get(nb, (0,))[0] for nb in near}
                assert min(thumbs.values()) >= THUMB, (engine, size, target, thumbs)
                sizes = p.js(SIZES_JS)
                labels = {nb: sizes["labels"].get(nb, 0) for nb in near}
                assert min(labels.values()) >= LABEL, (engine, size, target, labels)
                assert sizes["pieces"][target] >= PIECE, (engine, size, sizes["pieces"])
                every_finger_fits(p, f"outbid {target} {size}", sq=sq)
                figures[(size, target)] = dict(thumbs, label=round(min(labels.values()), 1), piece=round(sizes["pieces"][target], 1))
                shot(p, f"phone-turn-outbid-{target}-{w}x{h}")
                # Real taps in the middle of each square pick that neighborhood.
                for nb in sorted(mine):
                    tap_picks(p, nb, sq[nb])
                # The whole board, one tap away: all of it on the first screen, every neighborhood by a 24 px square; and back.
                p.click("#whole")
                p.wait("() => !document.getElementById('map').classList.contains('zoomed')")
                if target == "N06":
                    shot(p, f"phone-turn-whole-{w}x{h}")
                assert all(p.js(ON_SCREEN).values()), (engine, size, [k for k, v in p.js(ON_SCREEN).items() if not v])
                sq = every_finger_fits(p, f"whole {target} {size}", only=sorted(p.js(ON_SCREEN)))
                figures[(size, "whole")] = min(v[0] for v in sq.values())
                p.click("#whole")
                p.wait("() => document.getElementById('map').classList.contains('zoomed')")
            assert p.problems() == [], (engine, p.problems())
        finally:
            p.close()
    print(f"\n{engine}: " + json.dumps({" ".join(k): v for k, v in figures.items()}))


# Points in the water or street of the map at scroll 0 (no neighborhood named there), with the two shapes whose
# outlines come nearest (sampled every 2 units along each path, in screen px): one about as near to two shapes, one
# clearly nearer to one legal shape.
WATER_JS = """(legal) => {
  scrollTo(0, 0);
  const svg = document.getElementById('map'), m = svg.getScreenCTM(), r = svg.getBoundingClientRect(), outline = {};
  svg.querySelectorAll('path.cell[data-nb]').forEach(p => {
    const pts = [], L = p.getTotalLength();
    for (let s = 0; s < L; s += 2) { const q = p.getPointAtLength(s); pts.push([m.a * q.x + m.c * q.y + m.e, m.b * q.x + m.d * q.y + m.f]); }
    if (pts.some(([x, y]) => x >= r.left && x <= r.right && y >= 0 && y <= innerHeight)) outline[p.dataset.nb] = pts;
  });
  const found = {ask: null, clear: null};
  for (let y = Math.max(0, r.top) + 1; y < Math.min(innerHeight, r.bottom) && !(found.ask && found.clear); y += 3) {
    for (let x = Math.max(0, r.left) + 1; x < r.right; x += 3) {
      const e = document.elementFromPoint(x, y);
      if (!e || !svg.contains(e) || e.closest('[data-nb]')) continue;
      const d = Object.entries(outline).map(([nb, pts]) => [Math.min(...pts.map(([u, v]) => Math.hypot(u - x, v - y))), nb])
        .sort((a, b) => a[0] - b[0]);
      if (!found.ask && d[0][0] < 14 && d[1][0] - d[0][0] < 2 && (legal.includes(d[0][1]) || legal.includes(d[1][1])))
        found.ask = [x, y, d[0][1], d[1][1]];
      if (!found.clear && d[0][0] < 14 && d[1][0] - d[0][0] > 16 && legal.includes(d[0][1])) found.clear = [x, y, d[0][1]];
    }
  }
  return found;
}"""
WHICH = "() => { const w = document.getElementById('which'); return !w.hidden && [...w.querySelectorAll('[data-pick]')].map(b => b.dataset.pick); }"


def test_a_tap_about_as_near_two_shapes_asks_which_and_a_clear_one_picks(server, playwright):
    """Issue 30: a tap near a small shape never lands on its neighbour by surprise; ambiguous taps are asked, not
    guessed. A tap in the water about as near to two legal shapes (within 2 px) offers both (one legal, one not: the
    legal one is picked); one clearly nearer to one shape picks it at once."""
    p = make_phone("chromium", playwright, 390, 844)
    try:
        gid, others = new_turn(server, p)
        view = others["blue"].view(gid)
        p.js(BID, "C02", min(p.js("() => window.__phone.view.legal.neighborhoods")["C02"]))
        p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
        view = others["blue"].view(gid)
        act(others, gid, {"bid": "C08", "value": min(view["legal"]["neighborhoods"]["C08"])})
        act(others, gid, {"pass": True})
        view = act(others, gid, {"pass": True})
        wait_live(p, view["seq"])
        p.wait(SHOWN, "#turn")
        legal = sorted(p.js("() => window.__phone.view.legal.neighborhoods"))
        found = p.js(WATER_JS, legal)
        assert found["ask"] and found["clear"], found
        x, y, a, b = found["ask"]
        p.click_at(x, y)
        mine = a if a in legal else b
        if a in legal and b in legal:
            p.wait(WHICH)
            assert set(p.js(WHICH)) >= {a, b}, (found, p.js(WHICH))
            assert p.js("() => document.getElementById('pick').hidden")      # nothing picked yet
            p.click(f'#which [data-pick="{mine}"]')
        # Issue 37: only legal shapes are offered; one legal shape about as near as an illegal one is picked at once.
        p.wait(PICKED)
        assert p.js(PICKED).endswith(mine) and p.js("() => document.getElementById('which').hidden")
        p.click("#cancel")
        p.wait("() => document.getElementById('pick').hidden")
        x, y, nb = found["clear"]
        p.click_at(x, y)
        p.wait(PICKED)
        assert p.js(PICKED).endswith(nb) and p.js("() => document.getElementById('which').hidden")
        assert p.problems() == []
    finally:
        p.close()


# Issue 37: overlays on the turn screen never cover what a thumb needs, and a tap beside the shapes is read the same
# in every engine. The shapes' outlines as the page has them (map units), read back in Python: the distances below are
# computed here exactly (point to segment), not by the page's own code.
OUTLINES = "() => Object.fromEntries([...document.querySelectorAll('#map path.cell[data-nb]')].map(p => [p.dataset.nb, p.getAttribute('d')]))"
# The screen point of a map point, whether anything there names a neighborhood, and the map's scale (px a unit).
AT = """(x, y) => { scrollTo(0, 0); const svg = document.getElementById('map'), m = svg.getScreenCTM(), pt = svg.createSVGPoint();
  pt.x = x; pt.y = y; const q = pt.matrixTransform(m), r = svg.getBoundingClientRect(), dock = document.getElementById('turn').getBoundingClientRect();
  const e = document.elementFromPoint(q.x, q.y), named = e && e.closest && e.closest('[data-nb]');
  return [q.x, q.y, !!e && svg.contains(e) && q.y > Math.max(r.top, 0) + 4 && q.y < Math.min(r.bottom, dock.top) - 4 && q.x > r.left + 4 && q.x < r.right - 4,
          named ? named.getAttribute('data-nb') : null, Math.hypot(m.a, m.b)]; }"""
RECT = "s => { const e = document.querySelector(s); if (!e || e.hidden) return null; const r = e.getBoundingClientRect(); return r.height ? [r.left, r.top, r.right, r.bottom] : null; }"
OPEN = "() => ['pick', 'which'].filter(id => !document.getElementById(id).hidden)"
TOAST = "() => { const t = document.getElementById('tapmsg'); return !t.hidden && t.textContent; }"
REACH, TIE = 24, 10     # static/map.js: a finger's reach and a tie, in px


def outline_rings(d: str) -> list:
    import re
    rings: list = []
    for cmd, x, y in re.findall(r"([MLZ])\s*([-\d.]+)?[ ,]*([-\d.]+)?", d):
        if cmd == "M":
            rings.append([(float(x), float(y))])
        elif cmd == "L":
            rings[-1].append((float(x), float(y)))
    return rings


def dist(rings: list, x: float, y: float) -> float:
    """Exact distance from (x, y) to a shape: 0 inside (even-odd), else to its outline's nearest point."""
    import math
    best, inside = math.inf, False
    for r in rings:
        for (ax, ay), (bx, by) in zip(r[-1:] + r[:-1], r):
            dx, dy = bx - ax, by - ay
            if (ay > y) != (by > y) and x < ax + (y - ay) * dx / dy:
                inside = not inside
            k = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy))) if dx or dy else 0.0
            best = min(best, math.hypot(x - ax - k * dx, y - ay - k * dy))
    return 0.0 if inside else best


def water_points(shapes: dict, legal: list, box, unit: float, tags: list) -> tuple:
    """Map points in `box` (a grid about a px apart) in the water or street, 4 px outside every shape's halo (6 units)
    and well within a finger's reach: `ask` about as near (within 2 px) to two legal shapes, every other shape a tie
    (10 px) and 4 px farther; `clear` nearer to an illegal shape than to the one legal shape near it, every other legal shape
    far; none of them on a small shape's tag (which takes a tap 3 units around it). Best first (the nearest to the
    shapes), to try until one is on the screen in the engine."""
    x0, y0, x1, y1 = box
    lo, hi, gap, step = 6 + 4 / unit, 18 / unit, (TIE + 4) / unit, max(1, round(1.5 / unit))
    boxes = {nb: (min(x for r in rs for x, _ in r) - hi - gap, min(y for r in rs for _, y in r) - hi - gap,
                  max(x for r in rs for x, _ in r) + hi + gap, max(y for r in rs for _, y in r) + hi + gap)
             for nb, rs in shapes.items()}
    ask, clear = [], []
    for y in range(int(y0), int(y1), step):
        if len(ask) > 40 and len(clear) > 40:
            break
        for x in range(int(x0), int(x1), step):
            d = sorted((dist(shapes[nb], x, y), nb) for nb, b in boxes.items() if b[0] <= x <= b[2] and b[1] <= y <= b[3])
            if not d or d[0][0] < lo or d[0][0] > hi:
                continue
            if any(tx - lo < x < tx + tw + lo and ty - lo < y < ty + th + lo for tx, ty, tw, th in tags):
                continue
            lg = [e for e in d if e[1] in legal]
            if len(d) >= 2 and d[1][0] - d[0][0] < 2 / unit and d[0][1] in legal and d[1][1] in legal \
                    and (len(d) < 3 or d[2][0] > d[0][0] + gap):
                ask.append((d[0][0], x, y, sorted([d[0][1], d[1][1]])))
            if d[0][1] not in legal and lg and lg[0][0] - d[0][0] > 2 and lg[0][0] < hi and (len(lg) < 2 or lg[1][0] > lg[0][0] + gap):
                clear.append((lg[0][0], x, y, lg[0][1]))
    return sorted(ask), sorted(clear)


def meets(a, b) -> bool:
    return bool(a and b) and a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlays(p, server, first: dict) -> dict:
    """What each tap gives on this phone, on red's opening turn (the whole board, every shape legal) and on its outbid
    turn (after C02 and blue's C08, zoomed to the call); asserts as it goes. The map points tapped are the ones the
    first engine tapped (`first`), when they are free on this screen too."""
    seen: dict = {}
    gid, others = new_turn(server, p)
    p.wait(SHOWN, "#turn")

    def points():
        legal = sorted(p.js("() => window.__phone.view.legal.neighborhoods"))
        shapes = {nb: outline_rings(d) for nb, d in p.js(OUTLINES).items()}
        vb = [float(v) for v in p.js("() => document.getElementById('map').getAttribute('viewBox')").split()]
        unit = p.js(AT, vb[0], vb[1])[4]
        tags = p.js("() => [...document.querySelectorAll('#map .callout[data-nb] .calltag')].map(r => ['x', 'y', 'width', 'height'].map(k => +r.getAttribute(k)))")
        return legal, shapes, water_points(shapes, legal, (vb[0], vb[1], vb[0] + vb[2], vb[1] + vb[3]), unit, tags)

    def free(found, key):
        if key in first:   # the first engine's tap, meant to give the same in this one
            found = [(0, first[key][0], first[key][1], first[key][2])] + found
        for pt in found:
            x, y, ok, named, unit = p.js(AT, pt[1], pt[2])
            if ok and named is None:
                return pt, (x, y)
        raise AssertionError(f"{p.name}: no such point on the screen: {len(found)} {found[:3]} {[p.js(AT, f[1], f[2]) for f in found[:5]]}")

    # The opening turn. About as near two shapes: both offered, nothing else, in every engine the same.
    legal, shapes, (ask, clear) = points()
    pt, (x, y) = free(ask, "ask")
    p.click_at(x, y)
    p.wait(WHICH)
    seen["ask"] = [pt[1], pt[2], p.js(WHICH)]
    shot(p, "phone-turn-which-390x844")
    assert p.js(WHICH) == pt[3] and p.js(OPEN) == ["which"], (p.name, pt, p.js(WHICH), p.js(OPEN))
    # With the chooser open, a tap on a shape on the map: one sheet, that shape's.
    other = sorted(set(legal) - set(pt[3]), key=lambda nb: p.js(HITS, *p.js(SITE_OF, nb)) != nb)[0]
    p.click_at(*p.js(SITE_OF, other))
    p.wait(PICKED)
    assert p.js(OPEN) == ["pick"] and p.js(PICKED).endswith(other), (p.name, p.js(OPEN), p.js(PICKED))
    # With the value sheet open, a tap asked about: the chooser replaces the sheet.
    p.click_at(x, y)
    p.wait(WHICH)
    assert p.js(OPEN) == ["which"], (p.name, p.js(OPEN))
    p.click("#which-cancel")
    p.wait("() => document.getElementById('which').hidden")

    # The outbid turn: red opens on C02, blue outbids on C08, white and gray pass.
    view = others["blue"].view(gid)
    p.js(BID, "C02", min(p.js("() => window.__phone.view.legal.neighborhoods")["C02"]))
    p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
    view = others["blue"].view(gid)
    act(others, gid, {"bid": "C08", "value": min(view["legal"]["neighborhoods"]["C08"])})
    act(others, gid, {"pass": True})
    view = act(others, gid, {"pass": True})
    wait_live(p, view["seq"])
    p.wait(SHOWN, "#turn")
    legal, shapes, (ask, clear) = points()
    dock = [p.js(RECT, s) for s in ("#pass", "#whole", "#show-cards")]
    # An illegal shape tapped: refused with a sentence that covers neither the dock nor the bar's buttons.
    cx, cy = next(xy for xy in (p.js(SITE_OF, nb) for nb in sorted(set(shapes) - set(legal) - {"C02", "C08"}))
                  if p.js(HITS, *xy) and p.js(HITS, *xy) not in legal)
    p.click_at(cx, cy)
    p.wait(TOAST)
    toast = p.js(RECT, "#tapmsg")
    shot(p, "phone-turn-refusal-390x844")
    assert not any(meets(toast, d) for d in dock), (p.name, "the refusal covers the dock", toast, dock)
    # ... and goes at the next tap: beside an illegal shape, nearer to it than to a legal one, the legal one picked.
    pt, (x, y) = free(clear, "clear")
    p.click_at(x, y)
    p.wait(PICKED)
    assert p.js(PICKED).endswith(pt[3]) and p.js(OPEN) == ["pick"] and not p.js(TOAST), \
        (p.name, "a tap nearer an illegal shape than a legal one picks the legal one", pt, p.js(PICKED), p.js(OPEN))
    seen["clear"] = [pt[1], pt[2], pt[3]]
    # A refusal while the sheet is open sits above the sheet, never on it, and goes with Cancel.
    cx, cy = next(xy for xy in (p.js(SITE_OF, nb) for nb in sorted(set(shapes) - set(legal) - {"C02", "C08"}))
                  if p.js(HITS, *xy) and p.js(HITS, *xy) not in legal)
    p.click_at(cx, cy)
    p.wait(TOAST)
    assert not meets(p.js(RECT, "#tapmsg"), p.js(RECT, "#pick")), (p.name, "the refusal covers the sheet")
    p.click("#cancel")
    p.wait("() => document.getElementById('pick').hidden")
    assert not p.js(TOAST), (p.name, "the refusal stays after Cancel")
    assert p.problems() == [], (p.name, p.problems())
    return seen


HITS = """(x, y) => { const e = document.elementFromPoint(x, y), g = e && e.closest && e.closest('#map [data-nb]'),
  dock = document.getElementById('turn').getBoundingClientRect(); return !!g && y < dock.top - 4 && y > 40 && g.getAttribute('data-nb'); }"""
# A point inside a neighborhood's shape, on the screen, that names it (its piece spot, else its centre).
SITE_OF = """nb => { scrollTo(0, 0); const svg = document.getElementById('map'), g = svg.querySelector('.nb[data-nb="' + nb + '"]');
  const pt = svg.createSVGPoint(); pt.x = +g.dataset.x; pt.y = +g.dataset.y; const q = pt.matrixTransform(svg.getScreenCTM());
  return [q.x, q.y]; }"""


def test_overlays_leave_the_thumb_free_and_a_tap_is_read_alike_in_every_engine(server, playwright):
    """Issue 37: a refusal never covers the dock (Whole board, Pass) or the sheet, and goes at the next tap; one sheet
    at a time (the chooser and the value sheet never both open); a tap in the water is read by exact distances: legal
    shapes only, a near one picked at once, two about as near offered, the same in Chromium, WebKit and Gecko."""
    seen = {}
    for engine in ENGINES:
        p = make_phone(engine, playwright, 390, 844)
        try:
            seen[engine] = overlays(p, server, seen.get(ENGINES[0], {}))
        finally:
            p.close()
    first = seen[ENGINES[0]]
    for engine in ENGINES[1:]:
        assert seen[engine] == first, (engine, seen)
    print("\n" + json.dumps(seen))
