"""Issue 30 item 4 in real Chromium: the table screen read from the chairs at 720p. Every number on a piece at least
20 px at 1920x1080 and 14 px at 1280x720 (the smallest neighborhoods' pieces included), the name of who acts at least
48 and 32 px (computed font sizes of the real elements: a piece's number is its font size times the scale it is
drawn at on screen); about 10 s after a call ends its card leaves the map for the side column (the page's clock is
Playwright's, not waited for); 1024x600 stays usable. One server and one game for the module; the tests run in order."""
from __future__ import annotations

import statistics

import pytest

from pages_helpers import SHOTS, browser  # noqa: F401  (the module's browser fixture)
from table_scenes import LONG, act, end_call, late_game, seated
from test_pages_glance import INSIDE_JS, LAYOUT_JS

SIZES = [(1920, 1080), (1280, 720), (1024, 600)]
LEAST = {(1920, 1080): {"piece": 20, "who": 48}, (1280, 720): {"piece": 14, "who": 32}}
# The five smallest shapes on the table's map (their labels sit on tags beside them): the pieces drawn smallest.
TINY = ["N07", "C01", "C09", "E04", "S01"]
PIECES_JS = """() => [...document.querySelectorAll('#map .piece .pv, #map .piece .bv')].map(t => {
  const g = t.closest('.piece');
  return [g.dataset.buildingOf || g.dataset.bidOf, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
          t.getBoundingClientRect().height]; })"""
WHO_JS = """() => { const n = document.querySelector('#status .who .nm');
  return [n.textContent.replace(/\\u00ad/g, ''), parseFloat(getComputedStyle(n).fontSize)]; }"""
BOX_JS = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"""


def overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


@pytest.fixture(scope="module")
def game(server):
    """Four phones under 24-character names: a building on each of the five smallest shapes (a call opened there,
    everyone else passing), a late game, then a call opened with a bid on the smallest one still free."""
    gid, phones = seated(server)
    for nb in TINY:
        view = act(phones, gid, lambda mine, nb=nb: {"bid": nb, "value": mine["legal"]["neighborhoods"][nb][0]})
        view = end_call(phones, gid)
        assert view["built"][nb]
    view = late_game(phones, gid, calls=6)
    yield {"gid": gid, "phones": phones, "seq": view["seq"]}
    for p in phones.values():
        p.close()


def screen(browser, server, size, clock=False):  # noqa: F811
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.add_cookies([{"name": "lang", "value": "en", "url": server.origin}])
    ctx.set_default_timeout(15000)
    page = ctx.new_page()
    if clock:
        page.clock.install(time=1_700_000_000_000)
        page.clock.pause_at(1_700_000_000_500)
    return ctx, page


def test_piece_numbers_and_who_acts_are_read_from_the_chairs(browser, server, game, capsys):  # noqa: F811
    figures, problems = [], []
    for size in SIZES:
        ctx, page = screen(browser, server, size)
        try:
            page.goto(server.origin + "/table")
            page.wait_for_function("n => +document.getElementById('app').dataset.seq >= n", arg=game["seq"])
            pieces = page.evaluate(PIECES_JS)
            assert {nb for nb, _, _ in pieces} >= set(TINY), pieces
            sizes = sorted(px for _, px, _ in pieces)
            smallest = min(pieces, key=lambda p: p[1])
            name, who = page.evaluate(WHO_JS)
            assert name in LONG.values()
            figures.append(f"{size[0]}x{size[1]}: piece numbers ({len(pieces)}) font min {sizes[0]:.1f} px ({smallest[0]}, "
                           f"box {smallest[2]:.1f} px), median {statistics.median(sizes):.1f} px; who acts {who:.1f} px")
            least = LEAST.get(size)
            if least:
                small = [(nb, round(px, 1)) for nb, px, _ in pieces if px < least["piece"]]
                assert not small, (size, small)
                assert who >= least["who"], (size, who)
            problems += [f"{size}: {p}" for p in page.evaluate(LAYOUT_JS, {"noScroll": True})]
            for sel in ("#status", "#join-qr img", "#call li.last", ".hand[data-color=gray] .hvals"):
                where = page.evaluate(INSIDE_JS, sel)
                if where != "inside":
                    problems.append(f"{size}: {sel} {where}")
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/table-chairs-{size[0]}x{size[1]}.png")
        finally:
            ctx.close()
    with capsys.disabled():
        print("\n" + "\n".join(figures))
    assert not problems, "\n".join(problems)


def test_about_ten_seconds_after_a_call_its_card_gives_the_map_back(browser, server, game):  # noqa: F811
    gid, phones = game["gid"], game["phones"]
    view = end_call(phones, gid)
    built = view["call_over"]["neighborhood"]
    for size in SIZES:
        ctx, page = screen(browser, server, size, clock=True)
        try:
            page.goto(server.origin + "/table")
            page.wait_for_selector("#callover:not([hidden])")
            assert overlap(page.evaluate(BOX_JS, "#callover"), page.evaluate(BOX_JS, "#map"))   # over the map at first
            page.clock.run_for(9000)
            assert not page.locator("#callover.docked").count()
            page.clock.run_for(1500)
            page.wait_for_selector(".side #callover.docked")
            card, board = page.evaluate(BOX_JS, "#callover"), page.evaluate(BOX_JS, "#map")
            assert not overlap(card, board), (size, card, board)        # the whole board shows
            assert page.evaluate(INSIDE_JS, "#callover") == "inside"
            assert built in page.inner_text("#callover .big")
            assert not page.locator("#callbox").is_visible()          # the card is in the call's place
            problems = page.evaluate(LAYOUT_JS, {"noScroll": True})
            assert not problems, (size, problems)
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/table-callover-band-{size[0]}x{size[1]}.png")
            if size == SIZES[-1]:
                # The next bid: the card goes, the call's tiles come back.
                act(phones, gid, lambda mine: {"bid": sorted(mine["legal"]["neighborhoods"])[0],
                                               "value": mine["legal"]["neighborhoods"][sorted(mine["legal"]["neighborhoods"])[0]][0]})
                page.wait_for_selector("#callover", state="hidden")
                assert page.locator("#callbox").is_visible()
        finally:
            ctx.close()
