"""Issue 20's rough edges of an evening, each in real Chromium on the real server: a lost host's countdown, refusals
cleared by the next answer and said to "you" on one's own phone, visible expanders, a watcher told so, an offline tap
answered, a confirm for "Make host", the card after an undo, the cards one tap from the top, no network yet, the
tally that wraps and the tone after a reload."""
from __future__ import annotations

import re

from companion.lang import i18n
from pages_helpers import SHOTS, browser, devices  # noqa: F401
from test_pages_evening import new_game, seat, shots, table_display, wait_text

FAST = {"COMPANION_RATE_LIMIT": "1000"}


def two_players(start_server, devices, env=FAST, lang=None):  # noqa: F811
    """Ann (blue, the host) and Bert (red) seated on their own phones, the game started, both pages live."""
    server = start_server(env=env)
    ann, bert = devices(server, name="Ann", lang=lang), devices(server, name="Bert", lang=lang)
    gid = new_game(ann, ["blue", "red"])
    seat(ann, gid, "blue", "Ann")
    seat(bert, gid, "red", "Bert")
    status, view = ann.api("POST", f"/api/games/{gid}/start", {})
    assert status == 200, view
    for d in (ann, bert):
        d.goto(f"/g/{gid}")
        d.wait_seq(view["seq"])
    return server, gid, ann, bert, view


def act(device, gid, move):
    seq = device.view(gid)["seq"]
    status, data = device.api("POST", f"/api/games/{gid}/actions", dict(move, expect_seq=seq))
    assert status == 200, data
    return data


def first_move(view):
    """A legal opening bid for the player to act: its neighborhood and lowest value."""
    nb, values = sorted(view["legal"]["neighborhoods"].items())[0]
    return nb, min(values)


def test_a_lost_host_s_phone_is_counted_down_on_the_table_and_the_phones(start_server, devices):  # noqa: F811
    """Issue 20: "Hana's phone is gone. In 1:40 a player can take over as host", then "now", and the claim."""
    server, gid, ann, bert, view = two_players(start_server, devices, env=dict(FAST, COMPANION_HOST_AWAY="6"))
    table = table_display(devices, server)
    table.wait_phase("playing")
    ann.close()                 # the host's phone is gone
    line = "#offline li.hostgone"
    wait_text(table, line, "Ann")
    wait_text(bert, "#host-gone", "Ann")
    said = table.text(line)
    m = re.search(r"In 0:0(\d)", said)
    assert m and 1 <= int(m.group(1)) <= 6, said
    assert said == i18n.t("en", "host_gone_in", name="Ann (Blue)", time="0:0" + m.group(1))
    table.page.wait_for_function("([s, n]) => { const t = document.querySelector(s).textContent;"
                                 " const m = /In 0:0(\\d)/.exec(t); return m && +m[1] < n; }", arg=[line, int(m.group(1))])
    assert bert.text("#host-gone").startswith(i18n.t("en", "host_gone_in", name="Ann (Blue)", time="0:0")[:20])
    shots(table, "table-host-gone", table=True)
    shots(bert, "phone-host-gone")
    # When the time is up: said so on every screen, and a seated player may claim.
    wait_text(table, line, i18n.t("en", "host_gone_now", name="Ann (Blue)"))
    wait_text(bert, "#host-gone", i18n.t("en", "host_gone_now", name="Ann (Blue)"))
    bert.page.wait_for_selector("#claim-host:not([hidden])")
    assert bert.view(gid)["host_wait"] == 0


def test_a_refusal_is_cleared_by_the_next_answer_and_speaks_to_you(start_server, devices):  # noqa: F811
    """Issue 20: a refused tap's sentence stayed up to 5 s over the call-over card; on one's own phone it named the
    player in the third person ("Bert (Red) cannot act now")."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    first, other = (ann, bert) if view["to_act"] == "blue" else (bert, ann)
    mine = first.view(gid)
    nb, value = first_move(mine)
    other.tap(nb)           # not this phone's turn: refused at the tap, in the second person
    other.page.wait_for_selector("#tapmsg:not([hidden])")
    said = other.text("#tapmsg")
    assert said.startswith("You cannot act now: it is "), said
    # The server says it the same way to the player's own phone.
    status, data = other.api("POST", f"/api/games/{gid}/actions",
                             {"bid": nb, "value": value, "expect_seq": mine["seq"]})
    assert status == 422 and data["error"].startswith("You cannot act now"), data
    # The other player's bid: the next answer clears the stale sentence at once (not after 5 s).
    done = act(first, gid, {"bid": nb, "value": value})
    other.wait_seq(done["seq"])
    assert other.page.is_hidden("#tapmsg")


def test_refusals_speak_to_you_in_german_and_french(start_server, devices):  # noqa: F811
    for lang, start in (("de", "Du kannst jetzt nicht handeln"), ("fr", "Vous ne pouvez pas jouer maintenant")):
        server, gid, ann, bert, view = two_players(start_server, devices, lang=lang)
        other = bert if view["to_act"] == "blue" else ann
        other.ctx.add_cookies([{"name": "lang", "value": lang, "url": server.origin}])
        other.page.reload()
        other.wait_seq(view["seq"])
        other.tap(first_move((ann if other is bert else bert).view(gid))[0])
        other.page.wait_for_selector("#tapmsg:not([hidden])")
        assert other.text("#tapmsg").startswith(start), other.text("#tapmsg")


def test_expanders_show_their_arrow(start_server, devices):  # noqa: F811
    """Issue 20: "Log" and "Legend" looked like empty boxes: a flex summary hides the browser's own marker."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    arrows = ann.page.evaluate("""() => [...document.querySelectorAll('details > summary')].filter(s => s.offsetParent)
      .map(s => { const b = getComputedStyle(s, '::before');
        return [s.textContent.trim(), b.content, parseFloat(b.borderLeftWidth), b.borderLeftColor, b.display]; })""")
    assert len(arrows) >= 2
    for text, content, width, color, display in arrows:
        assert content != "none" and width >= 5 and color not in ("transparent", "rgba(0, 0, 0, 0)") \
            and display != "none", (text, content, width, color)
    closed = ann.page.evaluate("() => getComputedStyle(document.querySelector('#logbox > summary'), '::before').transform")
    ann.press("#logbox > summary")
    opened = ann.page.evaluate("() => getComputedStyle(document.querySelector('#logbox > summary'), '::before').transform")
    assert closed != opened      # the arrow turns down when open
    ann.shot("phone-expanders", at="#logbox")


def test_a_watcher_arriving_mid_game_is_told_they_are_watching(start_server, devices):  # noqa: F811
    server, gid, ann, bert, view = two_players(start_server, devices)
    watcher = devices(server, name="Watcher")
    watcher.page.set_viewport_size({"width": 320, "height": 568})
    watcher.goto(f"/g/{gid}")
    watcher.wait_seq(view["seq"])
    assert watcher.text("#watching") == i18n.t("en", "spectator")
    top = watcher.page.evaluate("s => document.querySelector(s).getBoundingClientRect().top", "#watching")
    code = watcher.page.evaluate("s => document.querySelector(s).getBoundingClientRect().top", "#code-open")
    assert top < code and top < 568     # said first, on the first screen; the seat code comes after
    assert ann.page.is_hidden("#watching")
    shots(watcher, "phone-watching")


def test_an_offline_tap_on_the_map_is_answered_at_the_finger(start_server, devices):  # noqa: F811
    server, gid, ann, bert, view = two_players(start_server, devices)
    me = ann if view["to_act"] == "blue" else bert
    nb, _ = first_move(me.view(gid))
    me.ctx.set_offline(True)
    me.page.wait_for_function("() => document.getElementById('app').dataset.live === '0'")
    me.tap(nb)
    me.page.wait_for_selector("#tapmsg:not([hidden])")
    assert me.text("#tapmsg") == i18n.t("en", "offline_turn")
    assert me.page.is_hidden("#pick")
    me.ctx.set_offline(False)


def test_an_answer_cut_off_mid_body_is_the_network_error_not_a_stuck_promise(start_server, devices):  # noqa: F811
    """Wi-Fi gone mid-answer: the headers came, the body never did (static/app.js api()); the page's own fetch is
    handed such a response, since no server can be made to cut a real one at the right moment."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    got = ann.page.evaluate("""async () => {
        const real = window.fetch;
        window.fetch = () => Promise.resolve(new Response(
            new ReadableStream({start(c) { c.error(new DOMException('cut off', 'AbortError')); }})));
        try { return await M.api('GET', location.pathname); } finally { window.fetch = real; }
    }""")
    assert got == {"ok": False, "status": 0, "data": {"error": i18n.t("en", "network_error")}}, got


def test_make_host_asks_first(start_server, devices):  # noqa: F811
    """Issue 20: "Make host" handed the role over at one tap while Undo and Abandon ask."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    ann.page.wait_for_selector("#host-seats button")
    n = len(server.events(gid))
    asked = []
    ann.page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    ann.page.get_by_role("button", name=i18n.t("en", "make_host")).tap()
    ann.page.wait_for_timeout(300)
    assert asked == [i18n.t("en", "make_host_confirm", player="Bert (Red)")] and len(server.events(gid)) == n
    ann.page.once("dialog", lambda d: d.accept())
    ann.page.get_by_role("button", name=i18n.t("en", "make_host")).tap()
    bert.page.wait_for_selector("#host-tools:not([hidden])")
    assert [k for _, _, k, _ in server.events(gid)][-1] == "host"


def test_undoing_a_call_s_opening_bid_does_not_bring_back_the_last_call_s_card(start_server, devices):  # noqa: F811
    server, gid, ann, bert, view = two_players(start_server, devices)
    who = {"blue": ann, "red": bert}
    v = who[view["to_act"]].view(gid)
    nb, value = first_move(v)
    act(who[v["to_act"]], gid, {"bid": nb, "value": value})
    v = act(who[bert.view(gid)["to_act"]], gid, {"pass": True})       # the call ends: the card is up
    assert v["call_over"]
    ann.wait_seq(v["seq"])
    assert ann.visible("#callover")
    opener = who[v["to_act"]]
    nb, value = first_move(opener.view(gid))
    act(opener, gid, {"bid": nb, "value": value})                     # the next call's opening bid
    ann.page.once("dialog", lambda d: d.accept())
    ann.press("#undo")
    # the POST answered: a GET before it raced (flaked at load 18); the bid to take off is a step on the board
    ann.page.wait_for_selector("#board-steps:not([hidden])")
    after = ann.view(gid)
    assert after["undone"] and after["call_over"] is None
    for d in (ann, bert):
        d.wait_seq(after["seq"])
        assert d.page.is_hidden("#callover") and d.visible("#board-steps")


def test_my_cards_are_on_the_first_screen(start_server, devices):  # noqa: F811
    """Issue 20: "My secret cards" sat 900-1,100 px down the phone page."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    for w, h in ((320, 568), (390, 844)):
        ann.page.set_viewport_size({"width": w, "height": h})
        ann.page.evaluate("scrollTo(0, 0)")
        box = ann.page.locator("#show-cards").bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 120, box
    ann.press("#show-cards")
    ann.page.wait_for_selector("#cards-overlay:not([hidden]) .card")
    ann.press("#hide-cards")
    for lang in ("de", "fr"):
        ann.ctx.add_cookies([{"name": "lang", "value": lang, "url": server.origin}])
        ann.page.reload()
        ann.page.set_viewport_size({"width": 320, "height": 568})
        ann.page.wait_for_selector("#show-cards:not([hidden])")
        assert ann.page.evaluate("() => document.documentElement.scrollWidth") <= 320
        assert ann.page.locator("#show-cards").bounding_box()["y"] < 120
    shots(ann, "phone-cards-at-the-top")


def test_no_network_yet_tells_the_host_what_to_do(start_server, devices):  # noqa: F811
    """With no address a phone could reach, the table display says what to do (not "open http://localhost:8000/").

    The server's own answer is checked in tests/test_join_url.py; here the page's sentence for it."""
    server = start_server(env=FAST)
    t = table_display(devices, server)
    t.page.wait_for_selector("#nogame", state="visible")
    # Listening on loopback only (as the tests do), its own address is the right one: the code and the address.
    wait_text(t, "#start-url", f"http://localhost:{server.port}/")
    assert t.visible("#start-qr")
    t.page.route("**/api/games/current", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body='{"id": null, "join_url": null, "phase": null, "start_url": "http://localhost:8000/", "no_network": true}'))
    t.page.reload()
    wait_text(t, "#start-url", i18n.t("en", "no_network"))
    assert "localhost" not in t.text("#nogame") and not t.visible("#start-qr")
    shots(t, "table-no-network", table=True)


def test_a_long_group_line_in_the_tally_wraps_on_a_phone(start_server, devices):  # noqa: F811
    """Issue 20 (all engines): "groups: C01+C02+C03+..." could not wrap and made the end screen wider than the phone."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    ann.page.set_viewport_size({"width": 320, "height": 568})
    wide = ann.page.evaluate("""() => {
      const v = JSON.parse(JSON.stringify(window.__phone.view)), g = [];
      for (let i = 1; i < 14; i++) g.push('C' + String(i).padStart(2, '0'));
      v.phase = 'finished'; v.mode = 'expert'; v.tiebreak = 'points';
      v.revealed = {blue: {area: 'chains', neighborhood: 'park'}, red: {area: 'bridges', neighborhood: 'mall'}};
      v.scores = {winners: ['blue'], players: {blue: {total: 40, buildings: 13, breakdown: {area: 9}},
                                               red: {total: 30, buildings: 12, breakdown: {}}}};
      v.details = {blue: {area_group_list: [g, ['N01', 'N02', 'N03', 'N04']]}};
      const end = document.getElementById('end'); end.hidden = false;
      M.endPanel(end, v, 'x');
      return document.documentElement.scrollWidth;
    }""")
    assert wide <= 320
    assert ann.page.locator("#end .scored li", has_text="C01 + C02").count() == 1


def test_the_turn_tone_sounds_after_a_reload(start_server, devices):  # noqa: F811
    """Issue 20: the AudioContext was made lazily at the turn (not at a tap) and never resumed: silent after a reload."""
    server, gid, ann, bert, view = two_players(start_server, devices)
    waiting = bert if view["to_act"] == "blue" else ann
    mover = ann if waiting is bert else bert
    waiting.page.evaluate("() => localStorage.setItem('metropolys-sound', '1')")
    warned = []
    waiting.page.on("console", lambda m: warned.append(m.text) if "AudioContext" in m.text else None)
    waiting.page.reload()
    waiting.wait_seq(view["seq"])
    waiting.page.touchscreen.tap(5, 200)        # any tap on the page: the context starts with it
    nb, value = first_move(mover.view(gid))
    done = act(mover, gid, {"bid": nb, "value": value})
    waiting.wait_seq(done["seq"])
    waiting.page.wait_for_function("() => G.audioState() === 'running'")
    assert not warned, warned
