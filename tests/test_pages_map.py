"""The map in real Chromium, after the page's script has placed the pieces: every token, building and bid sits inside
its own neighborhood's shape (SVG isPointInFill) and in no other, and covers no label; the token list beside the map
says exactly what the map shows, in the phone's language; the host walks the table through the districts."""
from __future__ import annotations

import random
import re

import pytest

from tools import boardmap

from companion.lang import i18n
from companion.game.board import board_data
from companion.game.board import CENTER, PERIPHERAL, TOKEN_KINDS
from companion.game.setup import random_layout
from pages_helpers import EXPOSE, SHOTS, SITE_JS, browser, devices  # noqa: F401
from server_helpers import Phone, create_game, play, seat_and_start

COLORS = ["blue", "red", "white", "gray"]
SIZES = {"table-1920": ({"width": 1920, "height": 1080}, False), "table-1280": ({"width": 1280, "height": 720}, False),
         "phone-390": ({"width": 390, "height": 844}, True), "phone-320": ({"width": 320, "height": 568}, True)}

PIECES_JS = """() => {
  const svg = document.getElementById('map');
  const shapes = [...svg.querySelectorAll('path.cell[data-nb]')];
  const inv = svg.getScreenCTM().inverse(), pt = svg.createSVGPoint();
  const centre = r => { pt.x = r.x + r.width / 2; pt.y = r.y + r.height / 2; return pt.matrixTransform(inv); };
  const cut = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
                        Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const labels = [...svg.querySelectorAll('text.nid, use.kicon')]
    .map(l => [(l.dataset.labelOf || l.closest('.nb').dataset.nb) + (l.tagName === 'text' ? ' label' : ' icon'), l.getBoundingClientRect()]);
  const pieces = [...svg.querySelectorAll('[data-token-of],[data-building-of],[data-bid-of]')];
  const problems = [], rects = [];
  for (const p of pieces) {
    const own = p.dataset.tokenOf || p.dataset.buildingOf || p.dataset.bidOf;
    const what = (p.dataset.tokenOf ? 'token' : p.dataset.buildingOf ? 'building' : 'bid') + ' of ' + own;
    const r = p.getBoundingClientRect(), c = centre(r);
    const inside = shapes.filter(s => s.isPointInFill(c)).map(s => s.dataset.nb);
    if (inside.length !== 1 || inside[0] !== own) problems.push(what + ' has its centre in ' + (inside.join(',') || 'no shape'));
    for (const [name, lr] of labels) if (cut(r, lr) > 1) problems.push(what + ' covers ' + name);
    for (const [name, pr] of rects) if (cut(r, pr) > 1) problems.push(what + ' covers the ' + name);
    rects.push([what, r]);
  }
  return {count: pieces.length, tokens: svg.querySelectorAll('[data-token-of]').length,
          buildings: svg.querySelectorAll('[data-building-of]').length, problems};
}"""

def test_shapes_are_big_enough_to_tap_on_a_phone():
    """The largest circle inside each shape, in CSS pixels on a phone of that width (the map fills the width)."""
    raw = board_data()
    shapes = boardmap._geometry()[4]
    across = sorted(2 * boardmap.pole(shapes[n["id"]])[1] for n in raw["neighborhoods"])
    at = {w: [d * w / boardmap.H for d in across] for w in (320, 390)}
    print(f"\ncircle inside a shape, px: 320 wide: min {at[320][0]:.0f}, median {at[320][27]:.0f}, "
          f"{sum(d >= 44 for d in at[320])}/55 >= 44; 390 wide: min {at[390][0]:.0f}, median {at[390][27]:.0f}, "
          f"{sum(d >= 44 for d in at[390])}/55 >= 44")
    assert at[390][27] >= 44 and sum(d >= 44 for d in at[390]) >= 40
    assert at[320][27] >= 40


def test_a_tap_on_the_water_beside_a_small_shape_picks_it(browser, server):  # noqa: F811
    ctx, page = open_page(browser, server, "/", {"width": 320, "height": 568}, True)
    try:
        page.check("input[name=layout][value=hand]")
        spot = page.evaluate("""() => {
          const svg = document.getElementById('map'), shape = svg.querySelector('path.cell[data-nb="C09"]');
          const g = shape.closest('.nb'), pt = svg.createSVGPoint();
          // from the shape's tap spot straight left until the water, then 3 units further
          pt.x = +g.dataset.x; pt.y = +g.dataset.y;
          while (shape.isPointInFill(pt)) pt.x -= 1;
          pt.x -= 3;
          const inside = [...svg.querySelectorAll('path.cell')].some(s => s.isPointInFill(pt));
          shape.scrollIntoView({block: 'center'});
          const p = pt.matrixTransform(svg.getScreenCTM());
          return [p.x, p.y, inside];
        }""")
        assert not spot[2], "the spot is in the water"
        page.touchscreen.tap(spot[0], spot[1])
        page.wait_for_selector('#map [data-token-of="C09"]')
    finally:
        ctx.close()


def open_page(browser, server, path, size, mobile, lang=None):  # noqa: F811
    opts = {"viewport": size, "device_scale_factor": 1}
    if mobile:
        opts.update(has_touch=True, is_mobile=True)
    if lang:
        opts["locale"] = lang
    ctx = browser.new_context(**opts)
    page = ctx.new_page()
    page.goto(server.origin + path)
    page.evaluate(EXPOSE)   # the page's modules by the names the checks use (BoardMap, M)
    return ctx, page


def settle(page, seq):
    page.wait_for_function("n => { const a = document.getElementById('app'); return a && +(a.dataset.seq ?? -1) >= n"
                           " && a.dataset.live === '1'; }", arg=seq)


def shot(page, name, at=None):
    if SHOTS:
        if at:
            page.locator(at).scroll_into_view_if_needed()
        page.screenshot(path=f"{SHOTS}/{name}.png")


class Games:
    """A 4-player game with a full random token layout (lobby), and one played far on (a late-game board).

    The table display follows the newest game, so a game is made again when the table needs it and it is not the newest."""

    def __init__(self, server):
        self.server, self.made, self.last, self.phones = server, {}, None, []

    def get(self, stage: str, table: bool):
        if stage not in self.made or (table and self.last != stage):
            host = Phone(self.server)
            gid = create_game(host, COLORS, seed=9)
            self.phones.append(host)
            if stage == "late":
                phones = {c: (host if c == "blue" else Phone(self.server)) for c in COLORS}
                self.phones += list(phones.values())
                seat_and_start(gid, host, phones)
                play(gid, phones, random.Random(5), max_actions=110, pass_rate=0.2)
            self.made[stage] = (gid, host.view(gid))
            self.last = stage
        return self.made[stage]

    def close(self):
        for p in self.phones:
            p.close()


@pytest.fixture(scope="module")
def games(server):
    g = Games(server)
    yield g
    g.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("stage", ["lobby", "late"])
def test_every_piece_sits_in_its_own_neighborhood_and_covers_no_label(browser, server, games, stage, size):  # noqa: F811
    viewport, mobile = SIZES[size]
    gid, view = games.get(stage, table=not mobile)
    path = f"/g/{gid}" if mobile else "/table"
    ctx, page = open_page(browser, server, path, viewport, mobile)
    try:
        settle(page, view["seq"])
        found = page.evaluate(PIECES_JS)
        assert found["tokens"] == len(view["tokens"])
        assert found["buildings"] == len(view["built"])
        assert found["count"] >= (27 if stage == "lobby" else 20)
        assert found["problems"] == []
        if stage == "late":
            assert len(view["built"]) >= 20 and view["phase"] == "playing", "a late-game board: many buildings, no end yet"
        name = ("table-map" if not mobile else "phone-map") + ("-tokens" if stage == "lobby" else "-late") + \
            size.split("-", 1)[1].join(["-", ""])
        shot(page, name, at=None if not mobile else "#map")
        if mobile and stage == "lobby":
            shot(page, name.replace("-map-", "-list-"), at="#layout")
    finally:
        ctx.close()


def test_at_320_px_every_neighborhood_is_legible_and_tapped_where_it_is(browser, server, games):  # noqa: F811
    gid, view = games.get("lobby", table=False)
    ctx, page = open_page(browser, server, f"/g/{gid}", {"width": 320, "height": 568}, True)
    try:
        settle(page, view["seq"])
        fonts = sorted(page.evaluate("() => [...document.querySelectorAll('#map text.nid')]"
                                     ".map(t => +getComputedStyle(t).fontSize.replace('px', '') * t.getScreenCTM().a)"))
        print(f"\n320 px: label font {fonts[0]:.1f}-{fonts[-1]:.1f} px, median {fonts[len(fonts) // 2]:.1f}")
        # most numbers read without zooming; the few smallest shapes need a pinch (the list beside the map has them all)
        assert fonts[0] >= 4.5 and fonts[len(fonts) // 2] >= 9 and sum(f < 7 for f in fonts) <= 8, fonts
        # the map fills the width, north to the right as its compass says, the same on every phone
        assert page.evaluate("() => document.getElementById('map').getBoundingClientRect().width") >= 300
        assert page.evaluate("() => document.querySelector('#map .compass .cw').textContent") == "North"
        for nb in ("N07", "E04", "C09", "S01"):
            x, y, ours = page.evaluate(SITE_JS, nb)
            assert ours, nb
    finally:
        ctx.close()


def _parse(lines: list[dict], lang: str) -> dict:
    """Reads the list back: "Center: trendy neighborhood C01, C05; subway C03" -> {"C01": "trendy", ...}."""
    terms = i18n.TERMS[lang]
    kinds = {terms[k]: k for k in TOKEN_KINDS}
    districts = {terms[d][:1].upper() + terms[d][1:]: d for d in (CENTER, *PERIPHERAL)}
    out, seen = {}, []
    for line in lines:
        head, _, rest = line["text"].partition(": ")
        assert districts[head] == line["district"]
        seen.append(line["district"])
        if rest == i18n.t(lang, "layout_none"):
            continue
        for part in rest.split("; "):
            m = re.fullmatch(r"(.+?) ((?:[CNESW]\d\d, )*[CNESW]\d\d)", part)
            assert m, part
            for nb in m.group(2).split(", "):
                assert nb[0] == line["district"][0].upper(), (nb, line)
                out[nb] = kinds[m.group(1)]
    return out, seen


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_token_list_equals_the_layout_for_200_seeds_and_each_player_count(browser, server, lang):  # noqa: F811
    ctx, page = open_page(browser, server, "/", {"width": 390, "height": 844}, True, lang=lang)
    try:
        cases = []
        for players, removed_options in ((4, [()]), (3, [(d,) for d in PERIPHERAL]),
                                         (2, [("north", "east"), ("east", "south"), ("south", "west"), ("west", "north")])):
            for seed in range(200):
                removed = removed_options[seed % len(removed_options)]
                cases.append((list(removed), random_layout(players, frozenset(removed), random.Random(seed))))
        got = page.evaluate("cases => { const m = new BoardMap(document.getElementById('map'));"
                            " return cases.map(([removed, tokens]) => m.layoutLines(tokens, removed)); }", cases)
        for (removed, tokens), lines in zip(cases, got):
            parsed, seen = _parse(lines, lang)
            assert parsed == tokens
            assert seen == [d for d in (CENTER, *PERIPHERAL) if d not in removed]
    finally:
        ctx.close()


def test_the_host_checks_each_district_in_turn_with_its_tokens_lit(browser, server):  # noqa: F811
    ctx, page = open_page(browser, server, "/", {"width": 390, "height": 844}, True)
    try:
        status = page.evaluate("""() => fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({mode: 'family', players: ['blue', 'red', 'white'], removed_districts: ['west'],
                                  deal: 'app', layout: 'random', seed: 4})}).then(r => r.json())""")
        gid = status["id"]
        page.goto(f"{server.origin}/g/{gid}")
        page.wait_for_selector("#check-start")
        tokens = page.evaluate("g => fetch('/api/games/' + g).then(r => r.json())", gid)["tokens"]
        assert len(tokens) == 7 + 5 * 3
        listed = page.inner_text("#layout-list")
        assert all(nb in listed for nb in tokens) and "West" not in listed
        shown = page.evaluate("() => [...document.querySelectorAll('#layout-list li')].map(li => li.textContent)")
        parsed, seen = _parse([{"district": d, "text": t} for d, t in zip([CENTER, "north", "east", "south"], shown)], "en")
        assert parsed == tokens and seen == [CENTER, "north", "east", "south"]
        shot(page, "phone-layout-list", at="#layout")
        page.locator("#check-start").tap()
        for i, district in enumerate([CENTER, "north", "east", "south"]):
            assert page.get_attribute("#check", "data-step") == district
            lit = page.evaluate("() => [...document.querySelectorAll('#map .slot.focus [data-token-of]')]"
                                ".map(t => t.dataset.tokenOf).sort()")
            assert lit == sorted(nb for nb in tokens if nb[0] == district[0].upper()), district
            assert page.inner_text("#layout-list li.focus").startswith(district.capitalize() + ":")
            assert page.evaluate("() => document.querySelectorAll('#map .nb.focus').length") == (15 if i == 0 else 10)
            if i == 1:
                shot(page, "phone-check-district", at="#map")
            page.locator("#check-next").tap()
        assert page.get_attribute("#check", "data-step") == "done"
        assert page.inner_text("#check .check-step") == i18n.t("en", "check_done")
        assert page.evaluate("() => document.querySelectorAll('#map .nb.focus').length") == 0
    finally:
        ctx.close()


COMPASS_JS = """() => {
  const svg = document.getElementById('map'), compass = svg.querySelector('.compass');
  const c = compass.getBoundingClientRect(), ctm = svg.getScreenCTM(), pt = svg.createSVGPoint();
  // The piece spots (a bid or a building stands there) and the statues the arrow's box reaches on this screen.
  const under = [...svg.querySelectorAll('.slot')].filter(s => {
    pt.x = +s.dataset.px; pt.y = +s.dataset.py;
    const p = pt.matrixTransform(ctm), r = +s.dataset.ps * ctm.a / 2;
    return p.x + r > c.left && p.x - r < c.right && p.y + r > c.top && p.y - r < c.bottom;
  }).map(s => s.dataset.nb);
  const later = el => !!(compass.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  return {turn: !!document.querySelector('.turnmode .compass'),
          under, piecesAfter: [...svg.querySelectorAll('.slot, .statue')].every(later)};
}"""


def test_the_north_arrow_on_the_turn_screen_is_painted_under_every_piece_and_statue(server, devices):  # noqa: F811
    """Issue 37: on the turn screen the compass sits over the board's top corner, where it hid the Pi's red 2 on W06.
    SVG paints in document order: every piece spot and statue comes after the arrow, so none is ever under it."""
    ann = devices(server, name="Ann")
    status, made = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"], "seed": 7,
                                                  "removed_districts": ["east", "south"]})
    assert status == 201, made
    gid = made["id"]
    assert ann.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    assert Phone(server).post(f"/api/games/{gid}/seats/red", {"name": "Bob"}).status == 200
    ann.goto(f"/g/{gid}")
    assert ann.api("POST", f"/api/games/{gid}/start")[0] == 200
    view = ann.view(gid)
    assert view["to_act"] == "blue", view["to_act"]
    ann.wait_seq(view["seq"])
    ann.page.wait_for_selector("#turn:not([hidden])")
    # The opening turn shows the whole board, where the arrow reaches over the top row of neighborhoods.
    got = ann.page.evaluate(COMPASS_JS)
    assert got["turn"] and got["under"], got   # the arrow does reach over piece spots here: the order matters
    assert got["piecesAfter"], got
