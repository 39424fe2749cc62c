"""Real Chromium (Debian's) driven by Playwright: phones with their own cookies that tap the pages like a player."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import pytest

import shots
from companion.lang import i18n

# The pages set no globals (their scripts are modules that import each other): a test reaches a module's exports as
# another module would, by importing it under the page's own URL (the same module, already run), and keeps them on
# window for its checks (`M.tr`, `window.__phone.view`). Nothing the pages run reads them.
EXPOSE = """async () => {
  for (const s of document.querySelectorAll('script[type="module"][src]')) {
    const m = await import(s.src);
    Object.assign(window, m);
    if (m.phone) window.__phone = m.phone;
  }
  return true;
}"""
EXPOSED = re.compile(r"__phone|\b(M|G|B|BoardMap|Replay|Chart)\.")


CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PHONE = {"width": 412, "height": 915}
TABLE = {"width": 1920, "height": 1080}
# PAGES_SCREENSHOTS=dir keeps the pages' screenshots in dir; =docs/screenshots refreshes the ones the docs link
# (every picture goes to the ignored screenshots/ folder, the linked ones are copied to docs/: tests/shots.py).
SHOTS = shots.folder()
# A wait looks every 50 ms, not at every animation frame (Playwright's default): a frame-by-frame wait makes the page
# draw 60 frames a second while it waits, 0.085 s of CPU per second of waiting in one page (measured with cpuacct)
POLL = 50


def launch(playwright):
    """Debian's chromium, headless; never a downloaded browser."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: the page tests need Debian's chromium "
                    "(scripts/test installs it with apt-get; or run: apt-get install chromium).", pytrace=False)
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


_shared: dict = {}


def driver():
    """One Playwright driver for the whole pytest process (stopped by conftest.py at the session's end)."""
    if "playwright" not in _shared:
        from playwright.sync_api import sync_playwright

        _shared["playwright"] = sync_playwright().start()
    return _shared["playwright"]


def stop_driver() -> None:
    """At the session's end, the browser closed and the driver stopped in that order, as the `with` block did."""
    browser = _shared.pop("browser", None)
    if browser is not None and browser.is_connected():
        browser.close()
    if "playwright" in _shared:
        _shared.pop("playwright").stop()


@pytest.fixture(scope="module")
def browser():
    """One Chromium for every module of this pytest process (a launch costs a second of CPU; some twenty modules
    use one), launched again if it went away. Each phone still gets its own context (cookies, storage, cache);
    what a module left open is closed with it."""
    b = _shared.get("browser")
    if b is None or not b.is_connected():
        b = _shared["browser"] = launch(driver())
    yield b
    for ctx in list(b.contexts):
        ctx.close()


@pytest.fixture
def devices(browser):
    """Factory: `devices(server, lang=None, table=False)` is a new browser context (own cookies) with one page."""
    made: list[Device] = []

    def make(server, lang: Optional[str] = None, table: bool = False, name: str = "") -> Device:
        d = Device(browser, server, lang=lang, table=table, name=name)
        made.append(d)
        return d

    yield make
    for d in made:
        d.close()


STATE_JS = """(forbidden) => {
  const a = document.getElementById('app'), t = document.getElementById('turn');
  // Everything rendered; the <script> blocks are left out: they hold every language string, every card's meaning.
  const doc = document.documentElement.cloneNode(true);
  doc.querySelectorAll('script').forEach(s => s.remove());
  const html = doc.outerHTML;
  return {seq: +(a.dataset.seq ?? -1), live: a.dataset.live === '1', phase: a.dataset.phase || null,
          toAct: a.dataset.toAct || null, turn: !!t && !t.hidden,
          leaks: forbidden.filter(f => html.includes(f))};
}"""

SITE_JS = """nb => {
  const svg = document.getElementById('map'), g = svg.querySelector('.nb[data-nb="' + nb + '"]');
  g.scrollIntoView({block: 'center'});
  const pt = svg.createSVGPoint(); pt.x = +g.dataset.x; pt.y = +g.dataset.y;
  const p = pt.matrixTransform(svg.getScreenCTM());
  const hit = document.elementFromPoint(p.x, p.y);
  const named = hit && hit.closest('[data-nb]');   // the shape, or its touch target on a turn (static/map-fit.js)
  return [p.x, p.y, !!named && svg.contains(named) && named.getAttribute('data-nb') === nb];
}"""

BIDS_JS = """() => Object.fromEntries([...document.querySelectorAll('#map .slot')]
  .filter(s => s.querySelector('.piece.bid'))
  .map(s => [s.dataset.nb, s.querySelector('.bl').textContent + s.querySelector('.bv').textContent]))"""


class Device:
    """One phone (or the table's screen): a browser context with its own cookie jar, one page, every socket frame."""

    def __init__(self, browser, server, lang=None, table=False, name=""):
        self.server = server
        self.name = name
        # The table's 1920 x 1080 layout, drawn at half scale: screenshots stay small, the layout is the same.
        opts = {"viewport": TABLE if table else PHONE, "device_scale_factor": 0.5 if table else 1}
        if not table:
            opts.update(has_touch=True, is_mobile=True)
        if lang:
            opts["locale"] = lang
        self.ctx = browser.new_context(**opts)
        self.ctx.set_default_timeout(15000)
        # On the context: a page opened later in it (a new tab of the same phone) has the test's names too.
        self.ctx.add_init_script(f"document.addEventListener('DOMContentLoaded', {EXPOSE})")
        self.page = self.ctx.new_page()
        self.frames: list[str] = []
        self.sent: list[str] = []     # every frame the page sent on its sockets (its bids and passes)
        self.posts: list[str] = []    # the path of every POST the page made
        self.page.on("websocket", self._socket)
        self.page.on("request", lambda r: self.posts.append(r.url.split("/", 3)[3]) if r.method == "POST" else None)

    def _socket(self, ws) -> None:
        ws.on("framereceived", self._frame)
        ws.on("framesent", lambda payload: self.sent.append(payload if isinstance(payload, str) else payload.decode()))

    def _frame(self, payload) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode())

    def goto(self, path: str) -> None:
        self.page.goto(path if path.startswith("http") else self.server.origin + path)
        # Until the test's names for the page's modules are set (engines.EXPOSE, run when the document is parsed).
        self.page.wait_for_function("() => !document.querySelector('script[type=\"module\"]') || !!(window.M || window.BoardMap)")

    # -- what the page shows --

    def state(self, forbidden=()) -> dict:
        return self.page.evaluate(STATE_JS, list(forbidden))

    def wait_seq(self, seq: int, timeout: float = 15000) -> None:
        """Until the page shows view `seq` (or later) from a live socket."""
        self.page.wait_for_function(
            "n => { const a = document.getElementById('app'); return !!a && +(a.dataset.seq ?? -1) >= n"
            " && a.dataset.live === '1'; }", arg=seq, timeout=timeout, polling=POLL)

    def wait_phase(self, phase: str) -> None:
        self.page.wait_for_function("p => document.getElementById('app').dataset.phase === p", arg=phase,
                                    polling=POLL)

    def highlights(self) -> list[str]:
        return sorted(self.page.eval_on_selector_all("#map .nb.legal", "els => els.map(e => e.dataset.nb)"))

    def bids(self) -> dict:
        return self.page.evaluate(BIDS_JS)

    def values(self) -> list[int]:
        """The values offered (a greyed, too-low value in the sheet only says why not)."""
        return [int(v) for v in self.page.eval_on_selector_all("#values button:not(.no)", "els => els.map(e => e.textContent)")]

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)

    def visible(self, selector: str) -> bool:
        return self.page.is_visible(selector)

    # -- what a player does --

    def tap(self, nb: str) -> None:
        """A finger on the neighborhood's own spot on the map (its label point); on a turn's map zoomed to the call,
        after Whole board when the neighborhood is off the screen (as a player would)."""
        x, y, ours = self.page.evaluate(SITE_JS, nb)
        if not ours and self.page.evaluate("() => document.getElementById('map').classList.contains('zoomed')"):
            self.press("#whole")
            x, y, ours = self.page.evaluate(SITE_JS, nb)
        assert ours, f"{nb}'s spot on the map is covered by something else"
        self.page.touchscreen.tap(x, y)

    def press(self, selector: str) -> None:
        self.page.locator(selector).tap()

    # -- the server, with this device's cookies --

    def api(self, method: str, path: str, body=None):
        headers = {"Origin": self.server.origin}
        url = self.server.origin + path
        if method == "GET":
            r = self.ctx.request.get(url, headers=headers)
        else:
            headers["Content-Type"] = "application/json"
            r = self.ctx.request.post(url, headers=headers, data=json.dumps(body if body is not None else {}),
                                      fail_on_status_code=False)
        return r.status, (r.json() if r.body() else None)

    def view(self, gid: str) -> dict:
        status, data = self.api("GET", f"/api/games/{gid}")
        assert status == 200, data
        return data

    def shot(self, name: str, full_page: bool = False, at: str = "") -> None:
        """A screenshot from the top of the page, or from the top of element `at`."""
        if SHOTS:
            self.page.evaluate("s => s ? document.querySelector(s).scrollIntoView() : scrollTo(0, 0)", at)
            self.page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=full_page)

    def close(self) -> None:
        self.ctx.close()


def card_strings(lang: str, mode: str, area: str, hood: Optional[str]) -> list[str]:
    """What a page would print for these cards: each card's title and its meaning."""
    t = lambda key, **p: i18n.t(lang, key, **p)  # noqa: E731
    out = [t("card_title", card=t("area_card"), name=i18n.term(lang, area)), t(f"area_{mode}_{area}")]
    if hood:
        name = i18n.term(lang, hood)
        out += [t("card_title", card=t("neighborhood_card"), name=name[:1].upper() + name[1:]),
                t("neighborhood_meaning", kind=name)]
    return out


def dealt_cards(server, gid: str) -> dict:
    """The cards the server dealt, read straight from the log (the test's own knowledge, not any page's)."""
    for _, _, kind, body in server.events(gid):
        if kind == "start":
            return {c: tuple(v) for c, v in json.loads(body)["cards"].items()}
    raise AssertionError("the game has not started")


def frame_leaks(frames: list[str], own: Optional[str], cards: dict) -> list[str]:
    """Socket frames that carry a secret card outside the device's own `you`, or any card reveal, before the end."""
    values = {v for pair in cards.values() for v in pair if v}
    bad = []
    for raw in frames:
        view = json.loads(raw)
        if "ack" in view:   # an answer to the phone's own bid (web/live_acts.py): its view, or a stale refusal's
            view = view["body"] if "phase" in view["body"] else view["body"].get("view", {})
        if view.get("phase") == "finished":
            continue
        you = view.pop("you", None)
        if you is not None and you.get("color") != own:
            bad.append(f"someone else's seat: {raw[:200]}")
        if you is not None and (you.get("area"), you.get("neighborhood")) not in (tuple(cards.get(own, ())),
                                                                                   (None, None)):
            bad.append(f"cards that are not this device's: {you}")
        if "revealed" in view or "scores" in view or "details" in view:
            bad.append(f"scores or revealed cards before the end: {raw[:200]}")
        strings = set(_strings(view))
        if strings & values:
            bad.append(f"card names {sorted(strings & values)} in {raw[:200]}")
    return bad


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


END_JS = """() => {
  const end = document.getElementById('end'), tbl = end.querySelector('table.scores');
  const rows = [...tbl.querySelectorAll('tr:not(.detail)')];   // the table's lines of what scored are under their row
  const head = [...rows[0].querySelectorAll('th')].slice(1).map(th => th.querySelector('.chip').textContent);
  const body = rows.slice(1).map(r => [r.querySelector('th').textContent,
     [...r.querySelectorAll('td')].map(td => td.firstChild.textContent)]);
  // the phone's winner stands on top of its first screen (#end-top), the table's in its tally
  const winner = end.querySelector('.winner') || document.querySelector('#end-top .winner');
  return {visible: !end.hidden, winner: winner.textContent, head, body,
          record: (end.querySelector('a[download]') || {}).href || null};
}"""


def tally_on_screen(device: Device) -> dict:
    return device.page.evaluate(END_JS)


def expected_tally(lang: str, mode: str, players: list[dict], printed: dict) -> dict:
    """The tally as the end panel should show it, built from `companion score`'s output and the seats."""
    keys = ["trendy", "subway", "subway_card", "archaeological", "archaeological_card", "area"]
    if mode == "expert":
        keys += ["neighborhood", "highest"]
    colors = [p["color"] for p in players]
    sign = lambda v: f"+{v}" if v > 0 else str(v)  # noqa: E731
    body = [[i18n.t(lang, "row_" + k), [sign(printed["players"][c]["breakdown"][k]) for c in colors]] for k in keys]
    body.append([i18n.t(lang, "row_total"), [str(printed["players"][c]["total"]) for c in colors]])
    body.append([i18n.t(lang, "row_buildings"), [str(printed["players"][c]["buildings"]) for c in colors]])
    cap = lambda w: w[:1].upper() + w[1:]  # noqa: E731
    names = {p["color"]: f"{p['name']} ({cap(i18n.term(lang, p['color']))})" for p in players}
    winners = ", ".join(names[c] for c in printed["winners"])
    key = "winners_shared" if len(printed["winners"]) > 1 else "winner"
    return {"head": [i18n.t(lang, "letter_" + c) for c in colors], "body": body,
            "winner": i18n.t(lang, key, players=winners)}


def shots_at(device, name: str, sizes, at: str = "") -> None:
    """The page at each size (scrolled to `at`), one file per size, to look at and keep in docs/screenshots."""
    if not SHOTS:
        return
    before = device.page.viewport_size
    for w, h in sizes:
        device.page.set_viewport_size({"width": w, "height": h})
        device.page.wait_for_timeout(150)
        device.page.evaluate("s => s ? document.querySelector(s).scrollIntoView() : scrollTo(0, 0)", at)
        device.page.screenshot(path=str(Path(SHOTS) / f"{name}-{w}x{h}.png"))
    device.page.set_viewport_size(before)
