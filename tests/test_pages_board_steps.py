"""What to do on the real board, on the phone (issue 40, items 1 and 2): in a solo game at the board's pace the
steps stand above the map until the person taps "Done on the board"; the held Pi then acts, once."""
from __future__ import annotations

import random

import pytest

from companion.lang import i18n
from companion.model.seats import name_for
from conftest import FAST
from engines import phone as make_phone
from engines import wait_live
from pages_helpers import SHOTS, browser, devices, driver, shots_at  # noqa: F401  (fixtures)
from server_helpers import LiveServer, Phone, choose, create_game
from test_pages_engines import SHOWN

PHONES = [(390, 844), (320, 568)]
TABLES = [(1920, 1080), (1280, 720)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("steps-pages") / "companion.sqlite3",
                   env=dict(FAST, COMPANION_BOT_DELAY="0", COMPANION_BOT_PROCESS="0"))
    s.start()
    yield s
    s.kill()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def held(phone, gid: str) -> dict:
    """Until a Pi holds its act for the board (a step pending, a Pi to act): the view then."""
    phone.page.wait_for_function(
        "() => { const v = window.__phone && window.__phone.view; return !!v && v.phase === 'playing'"
        " && v.to_act !== 'blue' && (v.board_pending || []).length > 0; }", timeout=30000)
    return phone.view(gid)


def test_the_steps_stand_above_the_map_until_done_on_the_board(server, devices):  # noqa: F811
    ann = devices(server, name="Ann")
    status, made = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red", "white", "gray"],
                                                  "seed": 21})
    assert status == 201, made
    gid = made["id"]
    assert ann.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    for color in ("red", "white", "gray"):
        assert ann.api("POST", f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"})[0] == 200
    ann.goto(f"/g/{gid}")
    table = devices(server, table=True)
    table.goto("/table")
    status, view = ann.api("POST", f"/api/games/{gid}/start")
    assert status == 200 and view["pace"] == "board" and view["to_act"] == "blue"
    nb = sorted(view["legal"]["neighborhoods"])[0]
    status, view = ann.api("POST", f"/api/games/{gid}/actions", {"bid": nb, "value": 1, "expect_seq": view["seq"]})
    assert status == 200, view
    view = held(ann, gid)
    # One Pi acted (its move, and the call's end if it won it), the next one waits.
    assert [s["step"] for s in view["board_pending"] if s["step"] != "call_end"] == [view["board_pending"][0]["step"]]
    assert view["board_pending"][0]["color"] == "red"
    step = view["board_pending"][0]
    ann.wait_seq(view["seq"])
    text = ann.text("#board-steps")
    levels = {p["color"]: p.get("pi") for p in view["players"]}
    who = name_for(levels["red"], "red")   # its one name (issue 40, item 4): "Pi Red (normal)"
    said = (cap(i18n.t("en", "pi_bid", player=who, value=step["value"], nb=step["neighborhood"], color="red"))
            if step["step"] == "bid" else cap(i18n.t("en", "pi_pass", player=who)))
    assert said in text and i18n.t("en", "board_steps_title") in text
    # Above the map: the list's bottom before the map's top, on the first screen.
    steps_box = ann.page.locator("#board-steps").bounding_box()
    map_box = ann.page.locator(".mapwrap").bounding_box()
    assert steps_box["y"] + steps_box["height"] <= map_box["y"], (steps_box, map_box)
    shots_at(ann, "phone-board-steps", PHONES)
    # The table screen shows the same steps, for the whole room, without a button (a person confirms).
    table.wait_seq(view["seq"])
    assert said in table.text("#board-steps") and not table.visible("#board-done")
    # Its log is never cut to fewer lines than the call has (issue 40, item 1), at either table size.
    for w, h in TABLES:
        table.page.set_viewport_size({"width": w, "height": h})
        table.page.wait_for_function("n => document.querySelectorAll('#log li').length >= n", arg=len(view["call"]),
                                     timeout=5000)
    shots_at(table, "table-board-steps", TABLES)
    # Done on the board: the held Pi (white) acts, once; the phone now lists white's step alone.
    ann.press("#board-done")
    ann.page.wait_for_function(
        "s => { const v = window.__phone.view; return (v.board_pending || []).length > 0"
        " && v.board_pending[0].seq > s; }", arg=step["seq"], timeout=30000)
    after = ann.view(gid)
    assert len([s for s in after["board_pending"] if s["step"] != "call_end"]) == 1, after["board_pending"]
    assert after["actions"] == view["actions"] + 1
    assert ann.visible("#board-done")
    # The host's undo question lists what the undo takes back: the Pi's moves since Ann's bid, each in the board's
    # words (issue 40, item 3); dismissed, nothing changes.
    took = ann.api("GET", f"/api/games/{gid}/undo")[1]
    assert took["count"] == after["actions"] >= 3
    with ann.page.expect_event("dialog") as info:
        ann.press("#undo")
    dialog = info.value
    question = dialog.message
    dialog.dismiss()
    for a in took["actions"][1:]:
        who = name_for(levels[a["color"]], a["color"])
        line = (i18n.t("en", "undone_also", player=who, value=a["value"], nb=a["neighborhood"],
                       color=i18n.term("en", a["color"])) if a["kind"] == "bid"
                else i18n.t("en", "undone_also_pass", player=who))
        assert cap(line) in question, (line, question)
    assert ann.view(gid)["actions"] == after["actions"]


def who(lang: str, view: dict, color: str) -> str:
    """A seat as the pages name it (static/app.js M.who): a Pi seat's one name, a person's name with the colour."""
    p = next(p for p in view["players"] if p["color"] == color)
    if p.get("pi"):
        return name_for(p["pi"], color, lang)
    return f"{p['name']} ({cap(i18n.term(lang, color))})" if p.get("name") else cap(i18n.term(lang, color))


def undo_lines(lang: str, view: dict, step: dict, mine: str | None = None) -> list[str]:
    """An undo's step as a screen says it, from the server's facts: what it took back, then each move; `mine`: the
    phone's own colour, whose person the sentences call "you" ("you bid 7", "Take your 7 off C15"), None on the
    table screen."""
    def acted(a):
        key = "log_bid" if a["kind"] == "bid" else "log_pass"
        if a["color"] == mine:
            said = i18n.t(lang, key + "_you", value=a.get("value"), nb=a.get("neighborhood"))
            return said[:1].lower() + said[1:]   # mid-sentence
        return i18n.t(lang, key, player=who(lang, view, a["color"]), value=a.get("value"), nb=a.get("neighborhood"))

    out = [cap(i18n.t(lang, "board_undo", actions="; ".join(acted(a) for a in step["taken"])))]
    for m in step["moves"]:
        if m["do"] == "card":
            card = i18n.t(lang, "card_" + m["card"])
            key = "undone_card_you" if m["color"] and m["color"] == mine else "undone_card"
            out.append(cap(i18n.t(lang, key, card=card, player=who(lang, view, m["color"])) if m["color"]
                           else i18n.t(lang, "undone_card_none", card=card)))
            continue
        pi = any(p["color"] == m["color"] and p.get("pi") for p in view["players"])
        key = "undo_" + m["do"] + ("_pi" if pi else "_you" if m["color"] == mine else "")
        out.append(cap(i18n.t(lang, key, player=who(lang, view, m["color"]),
                              value=m.get("value"), nb=m["nb"], color=i18n.term(lang, m["color"]),
                              token=i18n.term(lang, m["token"]) if m.get("token") else "")))
    return out


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


BOX_JS = """s => { const e = document.querySelector(s); if (!e || e.hidden) return null; const r = e.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, height: innerHeight, font: parseFloat(getComputedStyle(e.querySelector('ol.steps > li')).fontSize)}; }"""


@pytest.fixture(scope="module")
def undo_server(tmp_path_factory):
    """A server of its own: its game takes the table screen (another test's game in play would keep it)."""
    s = LiveServer(tmp_path_factory.mktemp("undo-pages") / "companion.sqlite3",
                   env=dict(FAST, COMPANION_BOT_DELAY="0", COMPANION_BOT_PROCESS="0"))
    s.start()
    yield s
    s.kill()


def test_after_an_undo_every_screen_lists_what_to_put_back_until_done_on_the_board(undo_server, devices):  # noqa: F811
    """Issue 40, item 3: the host undoes Ann's move and the Pi's moves since (a call the Pi ended among them: "the
    player who made the highest bid [...] turns his building over", now turned back); Ann's phone (German, 390x844 and
    320x568) and the table screen (1920x1080, 1280x720) list the moves at the top of the first screen, until Ann taps
    "Done on the board"."""
    ann = devices(undo_server, lang="de", name="Ann")
    status, made = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red", "white"], "seed": 5,
                                                  "removed_districts": ["west"], "pace": "timer"})
    assert status == 201, made
    gid, rng = made["id"], random.Random(6)
    assert ann.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    for color in ("red", "white"):
        assert ann.api("POST", f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"})[0] == 200
    status, view = ann.api("POST", f"/api/games/{gid}/start")
    assert status == 200, view
    for _ in range(40):   # Ann plays until the Pi's moves since her last one include a call's end, bids taken back
        status, view = ann.api("POST", f"/api/games/{gid}/actions", dict(choose(view, rng, 0.3), expect_seq=view["seq"]))
        assert status == 200, view
        while view["phase"] == "playing" and view["to_act"] != "blue":
            ann.page.wait_for_timeout(20)   # the Pi acts at once (COMPANION_BOT_DELAY=0)
            view = ann.view(gid)
        took = ann.api("GET", f"/api/games/{gid}/undo")[1]["actions"]
        if view["phase"] == "playing" and any((a.get("ended") or {}).get("back") for a in took[1:]):
            break
    else:
        raise AssertionError("no call the Pi ended")
    ann.page.set_viewport_size({"width": 390, "height": 844})
    ann.goto(f"/g/{gid}")
    ann.wait_seq(view["seq"])
    table = devices(undo_server, table=True)
    errors: list = []   # a script error stops the render before its fit: said with the failure it would cause
    table.page.on("pageerror", lambda e: errors.append(str(e)))
    table.goto("/table")
    table.wait_seq(view["seq"])
    ann.page.once("dialog", lambda d: d.accept())
    ann.press("#undo")
    ann.page.wait_for_function("() => (window.__phone.view.board_pending || []).some(s => s.step === 'undo')")
    back = ann.view(gid)
    step = [s for s in back["board_pending"] if s["step"] == "undo"]
    assert len(step) == 1 and len(step[0]["moves"]) >= 2 and "off" in {m["do"] for m in step[0]["moves"]}, step
    ann.wait_seq(back["seq"])
    said = undo_lines("de", back, step[0], mine=back["you"]["color"])
    assert lines_of(ann.text("#board-steps"))[1:-1] == said   # under its title, above its button
    assert not ann.visible("#undone")   # said once: in the steps
    for w, h in PHONES:   # the top of the first screen, above the map (Ann's turn again: the turn screen)
        ann.page.set_viewport_size({"width": w, "height": h})
        ann.goto(f"/g/{gid}")
        ann.wait_seq(back["seq"])
        box = ann.page.evaluate(BOX_JS, "#board-steps")
        ann.shot(f"phone-undo-steps-{w}x{h}")
        done = ann.page.locator("#board-done").bounding_box()
        map_box = ann.page.locator(".mapwrap").bounding_box()
        assert box and 0 <= box["top"] < 120 and box["bottom"] <= map_box["y"], (w, h, box, map_box)
        # Seen once in a full run under load: the list drawn and no button. What the page held then, to say why.
        assert done is not None, (w, h, ann.page.evaluate(
            "() => [document.getElementById('board-steps').outerHTML.slice(0, 600), JSON.stringify("
            "{seq: window.__phone.view.seq, you: window.__phone.view.you, phase: window.__phone.view.phase,"
            " pending: window.__phone.view.board_pending})]"))
        assert done["y"] > box["top"] and ann.visible("#board-done"), (w, h, done)   # under the list it confirms
        assert ann.page.evaluate("() => document.documentElement.scrollWidth") <= w
        ann.shot(f"phone-undo-steps-{w}x{h}")
    table_said = undo_lines("en", back, step[0])
    table.wait_seq(back["seq"])
    for w, h in TABLES:   # the list, large, in the first screen of the table's column; no button (a person confirms)
        table.page.set_viewport_size({"width": w, "height": h})
        table.page.wait_for_timeout(100)
        assert lines_of(table.text("#board-steps"))[1:] == table_said
        table.shot(f"table-undo-steps-{w}x{h}")
        box = table.page.evaluate(BOX_JS, "#board-steps")
        call = table.page.evaluate(BOX_JS.replace("ol.steps > li", "h2"), "#callbox")
        assert box and box["top"] >= 0 and call["bottom"] <= h and box["font"] >= 9, (w, h, box, call, errors)
        # the call put back stands whole under the list
        assert table.page.evaluate("() => [...document.querySelectorAll('#call li .cn')].map(e => e.textContent)") == [
            b["neighborhood"] for b in back["call"]]
        assert not table.visible("#board-done") and not table.visible("#undone")
    # Done on the board: gone from every screen, and it stays gone after a reload.
    ann.press("#board-done")
    ann.page.wait_for_function("() => !(window.__phone.view.board_pending || []).length")
    table.page.wait_for_function("() => document.getElementById('board-steps').hidden")
    ann.goto(f"/g/{gid}")
    ann.wait_seq(back["seq"] + 1)
    assert not ann.visible("#board-steps") and ann.view(gid)["board_pending"] == []


@pytest.fixture(scope="module")
def playwright():
    return driver()   # the process's one Playwright driver (tests/engines.py opens Chromium phones with it)


PLACE_JS = """() => { const box = s => { const e = document.querySelector(s); if (!e || e.hidden) return null;
  const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return {steps: box('#board-steps'), map: box('.mapwrap'), turn: document.getElementById('app').classList.contains('turnmode'),
          undone: box('#undone'), text: (document.getElementById('board-steps').innerText || '').split('\\n').map(t => t.trim()).filter(t => t)}; }"""


@pytest.mark.parametrize("engine", ["webkit", "gecko"])
def test_the_steps_and_an_undos_steps_in_each_engine(engine, undo_server, playwright):
    """Issue 40 (its test list: "WebKit and Gecko for one phone"): at the board's pace the Pi's opening bid stands
    above the map on the person's turn screen until "Done on the board"; the person passes (the Pi builds: "the
    player who made the highest bid [...] turns his building over"), the host undoes it, and the phone lists the
    building to turn back number up, above the map, until "Done on the board" again."""
    host = Phone(undo_server)
    gid = create_game(host, ["blue", "red"], seed=8)   # the board's pace: a Pi plays
    assert host.post(f"/api/games/{gid}/seats/blue/pi", {"level": "easy"}).status == 200
    p = make_phone(engine, playwright)
    try:
        p.open(f"{undo_server.origin}/g/{gid}")
        wait_live(p)
        p.wait(SHOWN, "#join-colors button")
        p.click("#join-colors button")
        p.js("() => { document.getElementById('join-name').value = 'Zoë'; }")
        p.click("#join button[type=submit]")
        p.wait("() => !!(window.__phone.view && window.__phone.view.you && window.__phone.view.you.color === 'red')")
        assert host.post(f"/api/games/{gid}/start").status == 200
        # The Pi (blue, the first seat) opens: its bid is the step, above the map on red's turn screen. (An opening
        # 13 ends the call at once: the Pi builds and waits for the board; Done, and it opens the next call.)
        for _ in range(6):
            p.wait("() => { const v = window.__phone.view; return !!v && (v.board_pending || []).length > 0; }")
            view = p.js("() => window.__phone.view")
            if view["to_act"] == "red":
                break
            p.click("#board-done")
            p.wait("n => +document.getElementById('app').dataset.seq > n", view["seq"])
        assert view["to_act"] == "red", view["board_pending"]
        bid = [s for s in view["board_pending"] if s["step"] == "bid"][-1]
        who = name_for("easy", "blue")
        said = cap(i18n.t("en", "pi_bid", player=who, value=bid["value"], nb=bid["neighborhood"], color="blue"))
        p.wait("t => document.getElementById('board-steps').innerText.includes(t)", said)
        at = p.js(PLACE_JS)
        assert at["turn"] and at["steps"][0] < 120 and at["steps"][1] <= at["map"][0], at
        p.click("#board-done")
        p.wait("() => !(window.__phone.view.board_pending || []).length && document.getElementById('board-steps').hidden")
        assert host.view(gid)["board_pending"] == []
        # Red passes: the call is over, the Pi builds (a step for the table to turn its piece over).
        before = host.view(gid)["seq"]
        p.click("#pass")
        p.wait("n => +document.getElementById('app').dataset.seq > n", before)
        view = host.view(gid)
        assert view["built"] and [s["step"] for s in view["board_pending"]] == ["call_end"], view["board_pending"]
        # The host undoes red's pass: the phone lists what to put back, above the map of red's turn again.
        r = host.post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]})
        assert r.status == 200, r
        back = r.json
        step = [s for s in back["board_pending"] if s["step"] == "undo"]
        assert len(step) == 1 and step[0]["moves"][0] == {"do": "turn_up", "color": "blue", "nb": bid["neighborhood"],
                                                          "value": bid["value"]}, back["board_pending"]
        lines = undo_lines("en", back, step[0], mine="red")   # Zoë's own phone
        p.wait("n => +document.getElementById('app').dataset.seq >= n && window.__phone.view.to_act === 'red'", back["seq"])
        p.wait("t => document.getElementById('board-steps').innerText.includes(t)", lines[-1])
        at = p.js(PLACE_JS)
        assert at["text"][1:1 + len(lines)] == lines, at["text"]   # under the title
        assert at["turn"] and at["steps"][0] < 120 and at["steps"][1] <= at["map"][0] and at["undone"] is None, at
        p.click("#board-done")
        p.wait("() => !(window.__phone.view.board_pending || []).length && document.getElementById('board-steps').hidden")
        assert host.view(gid)["board_pending"] == []
        assert p.problems() == []
    finally:
        p.close()
        host.close()
