"""The Pi's review and its hints on the phone's page (issue 41, items 3 and 4): "What would the Pi do?" at the
phone's turn, the phone's own costliest decisions once the game is over, at 320x568 and 390x844 in Chromium, and the
review in a WebKit and a Gecko phone (tests/engines.py). One server for the module."""
from __future__ import annotations

import math

import pytest

from companion.lang import i18n
from conftest import FAST
from engines import phone as make_phone
from engines import wait_live
from pages_helpers import SHOTS, browser, devices, driver, shots_at  # noqa: F401  (fixtures)
from server_helpers import LiveServer, Phone
from test_pages_engines import SHOWN, red_acts
from test_server_review import reviewed

PHONES = [(320, 568), (390, 844)]
TABLES = [(1920, 1080), (1280, 720)]
# A game played at the API's pace leaves every decision to judge after its last action: a few seconds alone, and
# minutes when the suite's other runs take the cores from the Pi's niced process (CI's load: 15 s was not enough).
REVIEW_WAIT = 240_000   # ms
LINES = "() => [...document.querySelectorAll('#review .reviewlist > li > p:first-child')].map(e => e.textContent)"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("review-pages") / "companion.sqlite3", env=FAST)
    s.start()
    yield s
    s.kill()


def lines(lang: str, seat: dict, name: str = "") -> list[str]:
    """What the phone must say of each marked decision, from the server's own review and strings; the table screen
    names the person (`name`) where the phone says "you"."""
    out = []
    for m in seat["marked"]:
        if name:
            you = i18n.t(lang, "review_they_passed", name=name) if m["action"].get("pass") else i18n.t(
                lang, "review_they_bid", name=name, value=m["action"]["value"], nb=m["action"]["bid"])
        else:
            you = i18n.t(lang, "review_you_passed") if m["action"].get("pass") else i18n.t(
                lang, "review_you_bid", value=m["action"]["value"], nb=m["action"]["bid"])
        pi = i18n.t(lang, "review_pi_passed") if m["better"].get("pass") else i18n.t(
            lang, "review_pi_bid", value=m["better"]["value"], nb=m["better"]["bid"])
        # As the page rounds (Math.round: half up; Python's round() halves to even: 6.5 gave 6 here, 7 on the page).
        out.append(i18n.t(lang, "review_line", call=m["call"], you=you, pi=pi, cost=max(1, math.floor(m["cost"] + 0.5))))
    return out


def blue_opens_red_passes(act_blue, act_red, view_of) -> None:
    """Blue opens every call on its first open neighborhood at its lowest value, red passes: blue builds its 13."""
    view = view_of()
    while view["phase"] == "playing":
        mine = view_of(view["to_act"])
        legal = mine["legal"]
        if view["to_act"] == "blue":
            nb = sorted(legal["neighborhoods"])[0]
            view = act_blue({"bid": nb, "value": legal["neighborhoods"][nb][0], "expect_seq": mine["seq"]})
        else:
            view = act_red({"pass": True} if legal["pass"] else {"bid": sorted(legal["neighborhoods"])[0]}, mine)


def test_a_hint_at_the_phones_turn_and_its_review_at_the_end(server, devices):  # noqa: F811
    blue = devices(server, name="Ann")
    status, made = blue.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"], "hints": True,
                                                   "removed_districts": ["north", "east"], "seed": 31})
    assert status == 201, made
    gid = made["id"]
    red = Phone(server)
    assert blue.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    assert red.post(f"/api/games/{gid}/seats/red", {"name": "Bob"}).status == 200
    blue.goto(f"/g/{gid}")
    assert blue.api("POST", f"/api/games/{gid}/start")[0] == 200
    view = blue.view(gid)
    if view["to_act"] != "blue":
        red.post(f"/api/games/{gid}/actions", {"pass": True} if view["legal"] is None and view["call"] else
                 {"bid": sorted(red.view(gid)["legal"]["neighborhoods"])[0], "value": red.view(gid)["legal"]["neighborhoods"][sorted(red.view(gid)["legal"]["neighborhoods"])[0]][0]})
        view = blue.view(gid)
    blue.wait_seq(view["seq"])
    assert blue.visible("#hint-ask") and not blue.visible("#hint-text")
    blue.press("#hint-ask")
    blue.page.wait_for_function("t => { const e = document.getElementById('hint-text'); return !e.hidden && e.textContent"
                                " && e.textContent !== t; }", arg=i18n.t("en", "hint_thinking"), timeout=REVIEW_WAIT)
    said = blue.text("#hint-text")
    assert said.startswith(("Bid ", "Pass: ")) and said.endswith(".")
    assert [p["hints"] for p in blue.view(gid)["players"]] == [1, 0]
    shots_at(blue, "review-hint", PHONES, at="#turn")
    assert not blue.visible("#review")
    assert not [f for f in blue.frames if '"marked"' in f or '"better"' in f]

    def act_blue(body):
        status, v = blue.api("POST", f"/api/games/{gid}/actions", body)
        assert status == 200, v
        return v

    def act_red(move, mine):
        move = move if "value" in move or move.get("pass") else dict(move, value=mine["legal"]["neighborhoods"][move["bid"]][0])
        r = red.post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        return r.json

    blue_opens_red_passes(act_blue, act_red, lambda c=None: red.view(gid) if c == "red" else blue.view(gid))
    blue.page.wait_for_function("() => document.querySelectorAll('#review h3').length === 1", timeout=REVIEW_WAIT)
    assert not blue.visible("#hint-ask")
    review = reviewed(red, gid).json
    assert blue.page.evaluate(LINES) == lines("en", review["seats"]["blue"])
    assert i18n.t("en", "review_title") in blue.text("#review")
    assert blue.text("#hints-tally") == "Ann (Blue): " + i18n.t("en", "hints_count", count=1)   # on the tally
    shots_at(blue, "review-phone", PHONES, at="#review")
    # The host shows every person's review on the table screen, and hides it again.
    table = devices(server, table=True)
    table.goto("/table")
    table.wait_phase("finished")
    assert not table.visible("#review")
    blue.press("#review-show")
    table.page.wait_for_function("() => document.querySelectorAll('#review .reviewseat h3').length === 2")
    shown = table.text("#review")
    names = {"blue": "Ann (Blue)", "red": "Bob (Red)"}
    assert all(line in shown for c in ("blue", "red") for line in lines("en", review["seats"][c], names[c]))
    assert "you bid" not in shown and "you passed" not in shown
    shots_at(table, "review-table", TABLES, at="#review")
    assert blue.text("#review-show") == i18n.t("en", "review_hide")
    blue.press("#review-show")
    table.page.wait_for_function("() => document.getElementById('review').hidden")


@pytest.fixture(scope="module")
def playwright():
    return driver()


@pytest.mark.parametrize("engine", ["webkit", "gecko"])
def test_the_review_on_a_phone_in_each_engine(engine, server, playwright):
    """Red on a WebKit or Gecko phone passes at every call through its page; at the end its page shows its review."""
    host = Phone(server)
    r = host.post("/api/games", {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"],
                                 "seed": 41})
    gid = r.json["id"]
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    p = make_phone(engine, playwright)
    try:
        p.open(f"{server.origin}/g/{gid}")
        wait_live(p)
        p.wait(SHOWN, "#join-colors button")
        p.click("#join-colors button")
        p.js("() => { document.getElementById('join-name').value = 'Zoë'; }")
        p.click("#join button[type=submit]")
        p.wait("() => !!(window.__phone.view && window.__phone.view.you && window.__phone.view.you.color === 'red')")
        assert host.post(f"/api/games/{gid}/start").status == 200

        def act_blue(body):
            r = host.post(f"/api/games/{gid}/actions", body)
            assert r.status == 200, r
            return r.json

        def act_red(move, mine):
            wait_live(p, mine["seq"])
            return red_acts(p, host, gid, move)

        def view_of(color=None):
            view = host.view(gid)
            if color != "red":
                return view
            wait_live(p, view["seq"])   # the page has the view the server has: red's legal moves in it
            return p.js("() => window.__phone.view")

        blue_opens_red_passes(act_blue, act_red, view_of)
        p.wait("() => document.querySelectorAll('#review h3').length === 1", timeout=REVIEW_WAIT / 1000)
        review = reviewed(host, gid).json
        shown = p.js("() => document.getElementById('review').textContent")
        assert i18n.t("en", "review_title") in shown
        assert all(line in shown for line in lines("en", review["seats"]["red"]))
        assert p.problems() == []
    finally:
        p.close()
        host.post(f"/api/games/{gid}/abandon", {"confirm": gid})   # a game cut short holds no cap of this server's


def test_the_host_allows_hints_in_the_lobby_form(server, devices):  # noqa: F811
    """The setup page's box: ticked, the new game allows hints; left alone, it does not."""
    host = devices(server, name="Ann")
    for tick in (True, False):
        host.goto("/")
        host.page.uncheck("#hints-allow")
        if tick:
            host.page.check("#hints-allow")
            shots_at(host, "review-lobby-hints", PHONES, at="#hints-allow")
        host.press("#create")
        host.page.wait_for_url("**/g/*")
        gid = host.page.url.rsplit("/g/", 1)[1]
        assert host.view(gid)["hints_allowed"] is tick
        host.api("POST", f"/api/games/{gid}/abandon", {"confirm": gid})
