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


def every_finger_fits(p, where: str, only=None) -> dict:
    """Every neighborhood on the screen (its number inside the map's box), or each of `only`, hit by a 24 px square."""
    sq = squares(p)
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
                every_finger_fits(p, f"outbid {target} {size}")
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
    guessed. A tap in the water about as near to two shapes (within 2 px) offers both; one clearly nearer to one
    shape picks it at once."""
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
        p.wait(WHICH)
        assert set(p.js(WHICH)) >= {a, b}, (found, p.js(WHICH))
        assert p.js("() => document.getElementById('pick').hidden")      # nothing picked yet
        mine = a if a in legal else b
        p.click(f'#which [data-pick="{mine}"]')
        p.wait(PICKED)
        assert p.js(PICKED).endswith(mine)
        p.click("#cancel")
        p.wait("() => document.getElementById('pick').hidden")
        x, y, nb = found["clear"]
        p.click_at(x, y)
        p.wait(PICKED)
        assert p.js(PICKED).endswith(nb) and p.js("() => document.getElementById('which').hidden")
        assert p.problems() == []
    finally:
        p.close()
