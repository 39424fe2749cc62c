"""Issue 10 in real Chromium: the call-over card on every screen, refusals at the tap, undo that names what it
takes back, and pages that fit 320 px phones to 1920 px tables in three languages with four long names.

One server, one browser, one game for the whole module (the tests run in order and build on each other)."""
from __future__ import annotations

import random

import pytest

from companion.lang import i18n
from companion.game.board import load_board
from games import layout_with
from pages_helpers import SHOTS, browser  # noqa: F401  (the module's browser fixture)

NAMES = {"blue": "Maximilian", "red": "Jürgen-Friedrich", "white": "Anne-Charlotte", "gray": "Dmitri Alexandrov"}
COLORS = list(NAMES)
LAYOUT = layout_with(4, fixed={"C01": "archaeological", "C02": "archaeological", "S02": "archaeological"}, seed=3)
PHONES = [(320, 568), (390, 844)]
TABLES = [(1024, 600), (1280, 720), (1920, 1080)]

# Layout problems on the page: horizontal scroll, boxes their content overflows, words broken inside,
# clipped content where a box hides its overflow.
LAYOUT_JS = r"""(opts) => {
  const bad = [];
  const W = innerWidth, H = innerHeight, de = document.documentElement;
  if (de.scrollWidth > W + 1) bad.push(`page scrolls sideways: ${de.scrollWidth} > ${W}`);
  if (opts.noScroll && de.scrollHeight > H + 1) bad.push(`page scrolls: ${de.scrollHeight} > ${H}`);
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const label = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '');
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, script, style, select, input, option, [hidden]') || !shown(e)) continue;
    const cs = getComputedStyle(e);
    if (cs.display.startsWith('inline') && cs.display !== 'inline-block' && cs.display !== 'inline-flex') continue;
    if (e.clientWidth && e.scrollWidth > e.clientWidth + 1) bad.push(`${label(e)} overflows its box sideways (${e.scrollWidth} > ${e.clientWidth}): ${e.textContent.slice(0, 60)}`);
    if (e.clientHeight && e.scrollHeight > e.clientHeight + 1 && (cs.overflowY !== 'visible' || e.classList.contains('box')))
      bad.push(`${label(e)} clips its content (${e.scrollHeight} > ${e.clientHeight}): ${e.textContent.slice(0, 60)}`);
    const r = e.getBoundingClientRect();
    if (r.right > W + 1 || r.left < -1) bad.push(`${label(e)} is outside the screen sideways (${Math.round(r.left)}..${Math.round(r.right)})`);
  }
  // A line of text may only end after a space or a hyphen (a soft one included: it shows as a hyphen), never inside a word.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('svg, script, style, select, option, [hidden]') || !shown(p)) continue;
    const t = n.textContent;
    let prev = -1, prevRect = null;
    for (let i = 0; i < t.length; i++) {
      range.setStart(n, i); range.setEnd(n, i + 1);
      const rs = range.getClientRects();
      if (!rs.length || rs[0].width === 0) continue;
      const r = rs[0];
      if (prevRect && r.top >= prevRect.bottom - 2) {
        // (Chromium gives the letter after a soft hyphen's break the previous line's rect: the hyphen is looked at too)
        const between = t.slice(Math.max(0, prev - 1), i);
        if (!/[\s\-‐–—\u00ad]/.test(between)) bad.push(`word broken inside: "${t.slice(Math.max(0, prev - 12), prev + 1)}|${t.slice(i, i + 12)}" in ${label(p)}`);
      }
      prev = i; prevRect = r;
    }
  }
  return bad;
}"""

INSIDE_JS = """(sel) => { const e = document.querySelector(sel); if (!e) return 'missing';
  const r = e.getBoundingClientRect(); if (!r.width || !r.height) return 'not shown';
  return (r.left >= -1 && r.top >= -1 && r.right <= innerWidth + 1 && r.bottom <= innerHeight + 1) ? 'inside' :
    `outside: ${r.left},${r.top},${r.right},${r.bottom} of ${innerWidth}x${innerHeight}`; }"""

ONE_LINE_JS = """(sel) => [...document.querySelectorAll(sel)].filter(e => {
  const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), r = document.createRange(), rects = [];
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    if (n.parentElement.closest('.chip')) continue;
    r.selectNodeContents(n); rects.push(...[...r.getClientRects()].filter(x => x.width > 0));
  }
  return rects.some(x => x.top >= rects[0].bottom - 2); }).map(e => e.textContent)"""


class Screen:
    """A browser context with its own cookies: a player's phone or the table display."""

    def __init__(self, browser, server, table=False):
        self.server = server
        opts = {"viewport": {"width": 1920, "height": 1080} if table else {"width": 390, "height": 844}}
        if not table:
            opts.update(has_touch=True, is_mobile=True)
        self.ctx = browser.new_context(**opts)
        self.ctx.set_default_timeout(15000)
        self.page = self.ctx.new_page()
        self.posts: list[str] = []
        self.page.on("request", lambda r: self.posts.append(r.url) if r.method != "GET" else None)
        # What the page sends on its live socket counts too: the phone's bids go there while it is open.
        self.page.on("websocket", lambda ws: ws.on("framesent", lambda f: self.posts.append(f"socket: {f}")))

    def api(self, method, path, body=None):
        url = self.server.origin + path
        headers = {"Origin": self.server.origin}
        if method == "GET":
            r = self.ctx.request.get(url, headers=headers)
        else:
            r = self.ctx.request.post(url, headers=dict(headers, **{"Content-Type": "application/json"}),
                                      data=__import__("json").dumps(body or {}), fail_on_status_code=False)
        return r.status, r.json()

    def lang(self, lang):
        self.ctx.add_cookies([{"name": "lang", "value": lang, "url": self.server.origin}])

    def open(self, path, seq=None, size=None):
        if size:
            self.page.set_viewport_size({"width": size[0], "height": size[1]})
        self.page.goto(self.server.origin + path)
        if seq is not None:
            self.wait(seq)

    def wait(self, seq):
        self.page.wait_for_function(
            "n => { const a = document.getElementById('app'); return !!a && +(a.dataset.seq ?? -1) >= n && a.dataset.live === '1'; }",
            arg=seq)

    def layout(self, no_scroll=False):
        return self.page.evaluate(LAYOUT_JS, {"noScroll": no_scroll})

    def shot(self, name):
        if SHOTS:
            self.page.screenshot(path=f"{SHOTS}/{name}.png")


@pytest.fixture(scope="module")
def screens(browser, server):  # noqa: F811
    """Four phones and the table display, each a browser context with its own cookies, for the whole module."""
    phones = {c: Screen(browser, server) for c in COLORS}
    table = Screen(browser, server, table=True)
    yield phones, table
    for s in list(phones.values()) + [table]:
        s.ctx.close()


@pytest.fixture
def table_game(screens):
    """A fresh game for each test (so each runs alone and in any order): four phones seated under long
    names, the table display, and two calls played: Blue built S02 (archaeological token, the card to
    Blue); then Red's 7 on C01 took the archaeological token and the card from Blue, while Blue's 1 on
    C03 goes back."""
    phones, table = screens
    status, body = phones["blue"].api("POST", "/api/games", {"mode": "family", "players": COLORS, "deal": "app",
                                                              "removed_districts": [], "layout": {"tokens": LAYOUT}})
    assert status == 201, body
    gid = body["id"]
    for c in COLORS:
        status, body = phones[c].api("POST", f"/api/games/{gid}/seats/{c}", {"name": NAMES[c]})
        assert status == 200, body
    status, view = phones["blue"].api("POST", f"/api/games/{gid}/start")
    assert status == 200, view
    state = {"gid": gid, "phones": phones, "table": table, "seq": view["seq"]}

    def act(color, move):
        status, v = phones[color].api("POST", f"/api/games/{gid}/actions", dict(move, expect_seq=state["seq"]))
        assert status == 200, v
        state["seq"] = v["seq"]
        return v

    state["act"] = act
    for color, move in [("blue", {"bid": "S02", "value": 6}), ("red", {"pass": True}), ("white", {"pass": True}),
                        ("gray", {"pass": True}), ("blue", {"bid": "C03", "value": 1}), ("red", {"bid": "C01", "value": 7}),
                        ("white", {"pass": True}), ("gray", {"pass": True}), ("blue", {"pass": True})]:
        act(color, move)
    for s in list(phones.values()) + [table]:
        s.lang("en")
    return state


@pytest.fixture
def finished_game(table_game):
    """The same game played on to the end through the API (random legal moves, seed 10)."""
    gid = table_game["gid"]
    rng = random.Random(10)
    phones = table_game["phones"]
    while True:
        status, view = phones["blue"].api("GET", f"/api/games/{gid}")
        if view["phase"] == "finished":
            break
        mine = phones[view["to_act"]].api("GET", f"/api/games/{gid}")[1]
        legal = mine["legal"]
        if legal["pass"] and (not legal["neighborhoods"] or rng.random() < 0.4):
            move = {"pass": True}
        else:
            nb = rng.choice(sorted(legal["neighborhoods"]))
            move = {"bid": nb, "value": rng.choice(legal["neighborhoods"][nb])}
        table_game["act"](view["to_act"], move)
    table_game["tiebreak"] = view["tiebreak"]
    return table_game


def test_call_over_card_on_every_screen_with_the_physical_steps(table_game):
    gid, seq = table_game["gid"], table_game["seq"]
    screens = dict(table_game["phones"], table=table_game["table"])
    for name, s in screens.items():
        s.lang("en")
        s.open("/table" if name == "table" else f"/g/{gid}", seq)
    want = ["Jürgen-Friedrich (Red): turn your 7 on C01 over and take the archaeological site token.",
            "Jürgen-Friedrich (Red): take the Archaeological site card from Maximilian (Blue).",
            "Everyone else: take your bids back (Maximilian (Blue): 1 on C03)."]
    # The winner's own phone speaks to them (issue 37 item 4): "Turn your 7 ...", never their own name.
    mine = ["Turn your 7 on C01 over and take the archaeological site token.",
            "Take the Archaeological site card from Maximilian (Blue).", want[2]]
    for name, s in screens.items():
        card = s.page.locator("#callover")
        assert card.is_visible(), name
        steps = s.page.eval_on_selector_all("#callover .steps li", "els => els.map(e => e.textContent)")
        assert steps == (mine if name == "red" else want), (name, steps)
        text = card.inner_text()
        assert "Ended: everyone else passed." in text, (name, text)
        assert "Passed: Maximilian (Blue), Anne-Charlotte (White), Dmitri Alexandrov (Gray)." in text, (name, text)
    # The winner's "open the next call" turn is there beside the card, never hidden by it.
    red = screens["red"].page
    assert red.locator("#turn").is_visible() and "Open the call" in red.inner_text("#turn-hint")
    screens["red"].shot("phone-call-over")
    screens["table"].shot("table-call-over")
    # The card stays until the next bid: Red opens the next call, and it is gone everywhere.
    table_game["act"]("red", {"bid": "C02", "value": 2})
    for name, s in screens.items():
        s.wait(table_game["seq"])
        assert not s.page.locator("#callover").is_visible(), name


def test_an_illegal_tap_says_the_rule_at_once_and_sends_nothing(table_game):
    gid = table_game["gid"]
    table_game["act"]("red", {"bid": "C02", "value": 2})
    white = table_game["phones"]["white"]
    white.open(f"/g/{gid}", table_game["seq"])
    white.posts.clear()
    # White to act after Red's 2 on C02: C01 is built (by Red), C10 is not next to C02.
    assert white.page.get_attribute("#app", "data-to-act") == "white"
    tap(white, "C01")
    assert white.page.inner_text("#tapmsg") == "You cannot bid in C01: Jürgen-Friedrich (Red) has already built there."   # on her own phone: "you" (issue 20)
    far = next(nb for nb in ("N01", "S10", "W01", "E10") if nb not in {"C01", "C02", "S02", "C03"})
    tap(white, far)
    assert white.page.inner_text("#tapmsg") == f"You cannot bid in {far}: it is not adjacent to C02, the last bid."
    # "Lakes and rivers are impassable" (rulebook-en, The call for proposal): C09 and C02 both border the upper
    # center lake and no street joins them, so the phone names the lake, as the server would (in each language).
    across = {"en": "You cannot bid in C09: a lake lies between it and C02, the last bid, and lakes cannot be crossed.",
              "de": "Du kannst nicht auf C09 bieten: zwischen diesem Feld und C02, dem letzten Gebot, liegt ein See, und Seen sind unpassierbar.",
              "fr": "Vous ne pouvez pas miser sur C09 : un lac sépare ce quartier de C02, la dernière offre, et les lacs sont infranchissables."}
    assert set(across) == set(i18n.LANGS)
    shipped = white.page.evaluate("JSON.parse(document.getElementById('water').textContent)")
    assert {frozenset(p.split()) for p in shipped} == load_board().across_water    # every lake pair, no other
    for lang, sentence in across.items():
        white.lang(lang)
        white.open(f"/g/{gid}", table_game["seq"], (320, 568) if lang == "fr" else (390, 844))
        white.posts.clear()
        tap(white, "C09")
        assert white.page.inner_text("#tapmsg") == sentence, lang
        assert white.posts == [], (lang, white.posts)
        # The server refuses the same bid for the same reason, to her own phone in the same words (asked directly).
        status, body = white.api("POST", f"/api/games/{gid}/actions", {"bid": "C09", "value": 13, "expect_seq": table_game["seq"]})
        assert (status, body["code"], body["error"]) == (422, "across_water", sentence), lang
        white.shot(f"phone-refusal-lake-{lang}")
    white.lang("en")
    white.page.set_viewport_size({"width": 390, "height": 844})
    # Gray, not to act, is told whose turn it is, in German.
    gray = table_game["phones"]["gray"]
    gray.lang("de")
    gray.open(f"/g/{gid}", table_game["seq"])
    gray.posts.clear()
    tap(gray, "C04")
    assert gray.page.inner_text("#tapmsg") == "Du kannst jetzt nicht handeln: Anne-Charlotte (Weiß) ist am Zug."
    white.page.wait_for_timeout(300)
    assert white.posts == [] and gray.posts == [], (white.posts, gray.posts)
    assert table_game["phones"]["blue"].api("GET", f"/api/games/{gid}")[1]["seq"] == table_game["seq"]


def test_undo_names_the_action_in_its_confirm_and_on_every_screen(table_game):
    gid = table_game["gid"]
    table_game["act"]("red", {"bid": "C02", "value": 2})
    blue = table_game["phones"]["blue"]            # the host
    blue.open(f"/g/{gid}", table_game["seq"])
    asked = []
    blue.page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    blue.page.locator("#undo").click()
    for _ in range(200):   # the question comes once the phone has asked the server what an undo would take back
        if asked:
            break
        blue.page.wait_for_timeout(50)
    assert asked == ["Take back Jürgen-Friedrich (Red)'s 2 on C02 for everybody?"]
    table_game["seq"] += 1
    # Every screen lists it in the steps to do on the board (issue 40), until a person says the board is done.
    want = ["Taken back: Jürgen-Friedrich (Red) bid 2 on C02. Put the board back:",
            "Jürgen-Friedrich (Red): take your 2 off C02."]
    screens = dict(table_game["phones"], table=table_game["table"])
    for name, s in screens.items():
        if name in ("gray",):
            continue   # in German: checked below
        s.open("/table" if name == "table" else f"/g/{gid}", table_game["seq"])
        said = ["Taken back: you bid 2 on C02. Put the board back:", "Take your 2 off C02."] if name == "red" else want
        assert [t for t in s.page.inner_text("#board-steps").split("\n") if t.strip()][1:3] == said, name   # "you" on red's own
    gray = screens["gray"]
    gray.lang("de")
    gray.open(f"/g/{gid}", table_game["seq"])
    assert "Zurückgenommen: Jürgen-Friedrich (Rot) bietet 2 auf C02." in gray.page.inner_text("#board-steps")
    # Undone: the undo's own notice is the card; the card of the call before (done on the board long ago) stays
    # away (issue 20: it came back and told the table to do that call's steps again).
    assert not screens["table"].page.locator("#callover").is_visible() and screens["table"].page.locator("#board-steps").is_visible()
    # The log names the passes too, newest first.
    # (the log is cut to the column's room after the layout settles: wait for its lines, not a fixed time)
    screens["table"].page.wait_for_function("() => document.querySelectorAll('#log li').length >= 2")
    log = screens["table"].page.eval_on_selector_all("#log li", "els => els.map(e => e.lastChild.textContent)")
    # (as many lines as the column has room for: with no call-over card the call's own box takes a line's room)
    assert log[:2] == ["Jürgen-Friedrich (Red) built 7 on C01.", "Maximilian (Blue) passed"]


def tap(screen, nb):
    """A finger in the middle of the shape; on a turn's map zoomed to the call, after Whole board when the shape is
    off the map's screen (issue 30), as a player would."""
    where = """nb => { const g = document.querySelector('#map .nb[data-nb="' + nb + '"]');
      g.scrollIntoView({block: 'center'}); const r = g.querySelector('.cell').getBoundingClientRect();
      const m = document.getElementById('map'), b = m.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
      return [x, y, m.classList.contains('zoomed') && !(x > b.left && x < b.right && y > b.top && y < b.bottom)]; }"""
    x, y, off = screen.page.evaluate(where, nb)
    if off:
        screen.page.locator("#whole").tap()
        x, y, off = screen.page.evaluate(where, nb)
    screen.page.touchscreen.tap(x, y)


def check_sizes(table_game, lang, phase):
    gid, seq = table_game["gid"], table_game["seq"]
    problems = []
    to_act = table_game["phones"]["blue"].api("GET", f"/api/games/{gid}")[1]["to_act"]
    for color in sorted({to_act or "red", "white"}):
        s = table_game["phones"][color]
        s.lang(lang)
        for size in PHONES:
            s.open(f"/g/{gid}", seq, size)
            problems += [f"{lang} {color} {size}: {p}" for p in s.layout()]
            if phase == "playing" and color == to_act:
                # The player to act: the sheet of values near the thumb, over the map, inside the screen.
                legal = s.api("GET", f"/api/games/{gid}")[1]["legal"]["neighborhoods"]
                tap(s, max(legal, key=lambda nb: len(legal[nb])))
                s.page.locator("#values .btn.val:not(.no)").last.tap()
                problems += [f"{lang} {color} {size} sheet: {p}" for p in s.layout()]
                inside = s.page.evaluate(INSIDE_JS, "#confirm")
                if inside != "inside":
                    problems.append(f"{lang} {size}: Confirm {inside}")
                if lang == "en":
                    s.shot(f"phone-sheet-{size[0]}")
    t = table_game["table"]
    t.lang(lang)
    # The end is revealed a line a second on the table (issue 30): with reduced motion it is all there at once, at
    # the same sizes, so the whole tally is checked (and shot) without waiting.
    t.page.emulate_media(reduced_motion="reduce" if phase == "finished" else "no-preference")
    for size in TABLES:
        t.open("/table", seq, size)
        problems += [f"{lang} table {size}: {p}" for p in t.layout(no_scroll=True)]
        problems += [f"{lang} table {size}: name wrapped: {n}" for n in t.page.evaluate(ONE_LINE_JS, ".ptable .pname .nm, .scores th .small")]
        for sel in (["#status", "#join-qr img"] if phase == "playing" else ["#end .scores tr.tot:last-child"]):
            inside = t.page.evaluate(INSIDE_JS, sel)
            if inside != "inside":
                problems.append(f"{lang} table {size}: {sel} {inside}")
        if lang == "en" or size == (1024, 600):
            t.shot(f"table-{phase}-{size[0]}x{size[1]}" + ("" if lang == "en" else f"-{lang}"))
    return problems


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_screen_fits_while_playing(table_game, lang):
    problems = check_sizes(table_game, lang, "playing")
    assert not problems, "\n".join(problems)


def test_you_passed_and_your_turn_is_in_the_title(table_game):
    gid = table_game["gid"]
    table_game["act"]("red", {"bid": "C02", "value": 2})
    table_game["act"]("white", {"pass": True})
    white, gray = table_game["phones"]["white"], table_game["phones"]["gray"]
    for s in (white, gray):
        s.lang("en")
        s.open(f"/g/{gid}", table_game["seq"], (390, 844))
    assert white.page.locator("#passed-note").is_visible()
    assert white.page.inner_text("#passed-note") == "You passed: wait for the end of this call."
    assert not gray.page.locator("#passed-note").is_visible()
    assert gray.page.title().startswith("Your turn – ") and not white.page.title().startswith("Your turn")
    # The log on the phone is one tap away, newest first, the pass included.
    gray.page.locator("#logbox summary").tap()
    first = gray.page.eval_on_selector_all("#log li", "els => els.map(e => e.lastChild.textContent)")[0]
    assert first == "Anne-Charlotte (White) passed"


def test_the_end_shows_the_tally_on_every_phone_and_the_table(finished_game):
    """When someone builds their last building, every phone and the table display show the tally."""
    gid, seq = finished_game["gid"], finished_game["seq"]
    screens = dict(finished_game["phones"], table=finished_game["table"])
    for name, s in screens.items():
        s.open("/table" if name == "table" else f"/g/{gid}", seq)
        s.page.wait_for_function("() => !document.getElementById('end').hidden")
        tally = s.page.inner_text("#end")
        for color in COLORS:
            assert NAMES[color] in tally, (name, color)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_screen_fits_at_the_end(finished_game, lang):
    problems = check_sizes(finished_game, lang, "finished")
    assert not problems, "\n".join(problems)
    t = finished_game["table"].page
    decider = t.eval_on_selector_all("#end tr.decider th", "els => els.map(e => e.textContent)")
    key = {"points": "row_total"}.get(finished_game["tiebreak"], "row_buildings")
    assert decider == [i18n.t(lang, key)]


def test_with_no_game_yet_the_table_display_says_so_and_where_to_start(browser, start_server):  # noqa: F811
    fresh = start_server()
    t = Screen(browser, fresh, table=True)
    try:
        t.lang("fr")
        t.open("/table")
        t.page.wait_for_selector("#nogame", state="visible")
        assert t.page.inner_text("#nogame h2") == i18n.t("fr", "scan_to_start")
        assert t.page.inner_text("#start-url") == fresh.origin + "/"       # the front door, under its code
        assert not t.page.locator("#conn").is_visible()     # no endless "Reconnecting"
        problems = []
        for size in TABLES:
            t.page.set_viewport_size({"width": size[0], "height": size[1]})
            problems += [f"{size}: {p}" for p in t.layout(no_scroll=True)]
        assert not problems, "\n".join(problems)
    finally:
        t.ctx.close()
