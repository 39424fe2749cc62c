"""Issue 41 items 1, 2 and 5 in real Chromium: a finished game watched again. The host's phone steps, jumps to a call
and plays the replay, and the table screen follows it (the board it paints is the one the rules engine reaches by
replaying the record that far); the chart (each colour's points after each call, the lead changes marked) and the
awards on the table's end show once the tally is revealed and on the replay page; a watcher's phone replays alone
and the table does not move; one phone in WebKit and in Gecko. One server, one finished Expert game, for the module."""
from __future__ import annotations

import pytest

from companion.game.record import replay as replay_record
from companion.lang import i18n
from engines import phone as make_phone
from pages_helpers import SHOTS, browser, driver, shots_at  # noqa: F401  (the module's browser fixture)
from table_scenes import finished, seated

MAP_JS = """() => Object.fromEntries([...document.querySelectorAll('#map .slot')]
  .filter(s => s.querySelector('.piece.built, .piece.bid'))
  .map(s => { const b = s.querySelector('.piece.built'), d = s.querySelector('.piece.bid');
              return [s.dataset.nb, b ? 'built ' + b.querySelector('.pl').textContent + b.querySelector('.pv').textContent
                                      : 'bid ' + d.querySelector('.bl').textContent + d.querySelector('.bv').textContent]; })
  .concat([...document.querySelectorAll('#map .piece.token')].map(t => ['token ' + t.dataset.tokenOf, t.dataset.kind])))"""
CHART_JS = """s => { const c = document.querySelector(s);
  return c && {lines: [...c.querySelectorAll('.pline')].map(p => p.dataset.color),
               leads: [...c.querySelectorAll('.lead')].map(g => [+g.dataset.call, g.dataset.color]),
               seen: (r => r.height > 40 && r.top >= 0 && r.bottom <= innerHeight + 1)(c.getBoundingClientRect())
                     && getComputedStyle(c.closest('.endextra, .rchart')).visibility !== 'hidden'
                     && (!c.closest('.tallycol') || c.getBoundingClientRect().bottom <= c.closest('.tallycol').getBoundingClientRect().bottom + 1)}; }"""


@pytest.fixture(scope="module")
def over(server):
    gid, phones = seated(server, mode="expert")
    view = finished(phones, gid)
    data = phones["blue"].get(f"/api/games/{gid}/replay").json
    record = phones["blue"].get(f"/api/games/{gid}/record").json
    yield {"gid": gid, "phones": phones, "view": view, "data": data, "record": record}
    for p in phones.values():
        p.close()


def board_at(record: dict, k: int) -> dict:
    """The board after k actions, as the rules engine reaches it from the record (what the map must show)."""
    st = replay_record(dict(record, actions=record["actions"][:k]))
    out = {nb: f"built {i18n.t('en', 'letter_' + b.player)}{b.value}" for nb, b in st.built.items()}
    out.update({f"token {nb}": kind for nb, kind in st.tokens.items()})
    out.update({b.neighborhood: f"bid {i18n.t('en', 'letter_' + b.player)}{b.value}" for b in st.call})
    return out


def leads(data: dict) -> list:
    """Where the lead changed hands after a call: a sole leader other than the last sole leader."""
    out, leader = [], None
    for s in data["steps"]:
        if "ended" not in s:
            continue
        best = max(s["scores"].values())
        top = [c for c, v in s["scores"].items() if v == best]
        if len(top) == 1 and top[0] != leader:
            if leader is not None:
                out.append([s["call"], top[0]])
            leader = top[0]
    return out


def context(browser, server, size, cookies=None, mobile=True):  # noqa: F811
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=mobile, is_mobile=mobile)
    ctx.add_cookies([{"name": "lang", "value": "en", "url": server.origin}] + (cookies or []))
    ctx.set_default_timeout(15000)
    return ctx


def test_the_host_phone_drives_the_replay_and_the_table_screen_follows(browser, server, over):  # noqa: F811
    gid, data, record, phones = over["gid"], over["data"], over["record"], over["phones"]
    n = len(data["steps"])
    want_leads = leads(data)
    tctx = context(browser, server, (1920, 1080), mobile=False)
    hctx = context(browser, server, (390, 844), [{"name": c.name, "value": c.value, "url": server.origin}
                                                 for c in phones["blue"].jar])
    wctx = context(browser, server, (390, 844))
    try:
        table = tctx.new_page()
        table.goto(server.origin + "/table")
        table.wait_for_selector("#end:not([hidden])[data-reveal]")
        assert phones["blue"].post(f"/api/games/{gid}/show/skip").status == 200
        table.wait_for_selector("#end[data-reveal=done] .endextra .chart")
        if SHOTS:
            shots_at(type("D", (), {"page": table})(), "replay-endshow", [(1280, 720), (1920, 1080)])
        got = table.evaluate(CHART_JS, "#end .chart")
        assert got["lines"] == [p["color"] for p in data["players"]] and got["seen"]
        assert got["leads"] == want_leads
        awards = table.eval_on_selector_all("#end .award", "els => els.map(e => [e.dataset.award, e.textContent])")
        assert [a[0] for a in awards] == [a["award"] for a in data["awards"]] and len(awards) == 3
        first = data["awards"][0]
        assert i18n.t("en", "award_" + first["award"] + "_value", count=first["value"]) in awards[0][1]

        host = hctx.new_page()
        host.goto(f"{server.origin}/g/{gid}/replay")
        host.wait_for_selector("#replay-app[data-ready='1'][data-step='0']")
        assert host.is_visible("#r-host")
        host.check("#r-table")
        table.wait_for_selector("#replay-side[data-step='0']")
        assert table.evaluate(MAP_JS) == board_at(record, 0) and table.is_hidden("#end")
        for k in (1, 2, 3):
            host.click("#r-next")
            host.wait_for_selector(f"#replay-app[data-step='{k}']")
        table.wait_for_selector("#replay-side[data-step='3']")
        assert table.evaluate(MAP_JS) == board_at(record, 3) == host.evaluate(MAP_JS)
        s = data["steps"][2]
        said = host.inner_text("#r-caption")
        assert i18n.t("en", "replay_step", step=3, steps=n) in said and s["color"] in said.lower()
        # Jump to a call: the first action of call 6 (the board as the sixth call opened, its first bid on it).
        host.select_option("#r-calls", "6")
        k = next(st["seq"] for st in data["steps"] if st["call"] == 6)
        host.wait_for_selector(f"#replay-app[data-step='{k}']")
        table.wait_for_selector(f"#replay-side[data-step='{k}']")
        assert table.evaluate(MAP_JS) == board_at(record, k)
        assert len([v for v in table.evaluate(MAP_JS).values() if v.startswith("built")]) == 5
        # The seats' points at that step are the scoring of that board, on both screens.
        pts = host.eval_on_selector_all("#r-seats .rseat", "els => els.map(e => [e.dataset.color, +e.querySelector('.rpts').textContent])")
        assert dict(pts) == data["steps"][k - 1]["scores"]
        if SHOTS:
            shots_at(type("D", (), {"page": table})(), "replay-table", [(1920, 1080), (1280, 720)])
            shots_at(type("D", (), {"page": host})(), "replay-phone", [(390, 844), (320, 568)])
        # Play at a pace, then pause: the table moves on with the phone.
        host.click("#r-play")
        host.wait_for_selector(f"#replay-app[data-step='{k + 2}']", timeout=20000)
        host.click("#r-play")
        stopped = int(host.get_attribute("#replay-app", "data-step"))
        table.wait_for_selector(f"#replay-side[data-step='{stopped}']")
        host.click("#r-last")
        host.wait_for_selector(f"#replay-app[data-step='{n}']")
        table.wait_for_selector(f"#replay-side[data-step='{n}']")
        assert table.evaluate(MAP_JS) == board_at(record, n)
        host.evaluate("() => document.querySelector('#r-chart .chart').scrollIntoView()")
        got = host.evaluate(CHART_JS, "#r-chart .chart")
        assert got["leads"] == want_leads and got["seen"]
        # A watcher replays alone: no table switch, and the table stays where the host left it.
        watcher = wctx.new_page()
        watcher.goto(f"{server.origin}/g/{gid}/replay")
        watcher.wait_for_selector("#replay-app[data-ready='1']")
        assert watcher.is_hidden("#r-host")
        watcher.click("#r-next")
        watcher.wait_for_selector("#replay-app[data-step='1']")
        assert phones["red"].view(gid)["replay_step"] == n
        # The host lets the table go: the end show is back.
        host.uncheck("#r-table")
        table.wait_for_selector("#end:not([hidden])")
        assert table.is_hidden("#replay-side")
    finally:
        for c in (tctx, hctx, wctx):
            c.close()


@pytest.mark.parametrize("engine", ["webkit", "gecko"])
def test_a_phone_replays_in_each_engine(engine, server, over):
    gid, n = over["gid"], len(over["data"]["steps"])
    p = make_phone(engine, driver())
    try:
        p.open(f"{server.origin}/g/{gid}/replay")
        p.wait("() => document.getElementById('replay-app').dataset.ready === '1'")
        p.click("#r-next")
        p.wait("() => document.getElementById('replay-app').dataset.step === '1'")
        p.click("#r-last")
        p.wait("n => document.getElementById('replay-app').dataset.step === String(n)", n)
        assert p.js("() => document.querySelectorAll('#r-chart .pline').length") == 4
        assert p.js("() => document.querySelectorAll('#r-awards .award').length") == 3
        assert p.js("() => document.documentElement.scrollWidth <= innerWidth + 1")
        assert p.problems() == []
    finally:
        p.close()
