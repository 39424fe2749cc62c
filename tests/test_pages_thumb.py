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
ON_SCREEN = """() => { const m = document.getElementById('map').getBoundingClientRect(), out = {};
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
            for target, (opening, small) in CASES.items():
                gid, others = new_turn(server, p)
                size = f"{w}x{h}"
                # The opening turn: the whole board on the first screen.
                p.wait(SHOWN, "#turn")
                top = p.js("() => { const r = document.getElementById('map').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }")
                assert top[0] >= 0 and top[1] <= top[2], (engine, size, top)
                if target == "N06":
                    shot(p, f"phone-turn-opening-{size}")
                # Red opens on the target's neighbour, blue outbids on the target, white and gray pass.
                view = others["blue"].view(gid)
                p.js(BID, opening, min(p.js("() => window.__phone.view.legal.neighborhoods")[opening]))
                p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
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
                figures[(size, target)] = dict(thumbs, label=round(min(labels.values()), 1), piece=round(sizes["pieces"][target], 1))
                shot(p, f"phone-turn-outbid-{target}-{size}")
                # Real taps in the middle of each square pick that neighborhood.
                for nb in sorted(mine):
                    tap_picks(p, nb, sq[nb])
                # The whole board, one tap away; and back.
                p.click("#whole")
                p.wait("() => !document.getElementById('map').classList.contains('zoomed')")
                p.click("#whole")
                p.wait("() => document.getElementById('map').classList.contains('zoomed')")
            assert p.problems() == [], (engine, p.problems())
        finally:
            p.close()
    print(f"\n{engine}: " + json.dumps({" ".join(k): v for k, v in figures.items()}))
