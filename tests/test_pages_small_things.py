"""Issue 30's smaller things in real Chromium on the real server: the score page asks names with the colours and
refuses a secret card entered twice at once, on the entering phone only; a lobby's host abandons it; no call-over
card under "Game abandoned"; a 2-player table takes the host role without the table display; the claim sentence
in en/de/fr; a watcher is offered only "Take a seat with a code".

PAGES_SCREENSHOTS=dir keeps screenshots at 320x568 and 390x844 (the score page also at 1280x720)."""
from __future__ import annotations

import random

from companion.lang import i18n
from pages_helpers import browser, devices, shots_at  # noqa: F401
from server_helpers import choose
from test_pages_evening import FAST, new_game, seat, wait_text

PHONES = [(320, 568), (390, 844)]


def shown(device, selector: str) -> bool:
    return device.page.is_visible(selector)


def msg_is(device, text: str) -> None:
    device.page.wait_for_function("t => document.getElementById('msg').textContent === t", arg=text)


# -- 1 and 2: the score page --

def test_the_score_page_asks_each_colour_s_name_as_it_sits_down_and_the_tally_needs_none(server, devices):
    host = devices(server, name="host")
    host.page.set_viewport_size({"width": 390, "height": 844})
    host.goto("/score")
    host.page.wait_for_selector("#new")
    # Four colours ticked, four names asked right beside them; a colour left out asks none.
    assert [host.page.get_attribute(f"input[data-name={c}]", "placeholder") for c in ("blue", "red", "white", "gray")] \
        == [i18n.t("en", "score_pen_name")] * 4
    host.press("input[name=color][value=white]")
    host.press("input[name=color][value=gray]")
    assert host.page.is_disabled("input[data-name=white]") and host.page.is_disabled("input[data-name=gray]")
    host.page.fill("input[data-name=blue]", "Ana")
    host.press("#begin")
    # Red has no name yet: the form says so before any board exists.
    assert host.page.evaluate("() => document.querySelector('input[data-name=red]').validity.valueMissing")
    assert "/score/" not in host.page.url
    host.page.fill("input[data-name=red]", "Bo")
    host.press("input[name=removed][value=north]")      # two players: two peripheral districts out
    host.press("input[name=removed][value=east]")
    shots_at(host, "score-new-names", PHONES + [(1280, 720)])
    host.press("#begin")
    host.page.wait_for_url("**/score/*")
    gid = host.page.url.rsplit("/", 1)[1]
    host.page.wait_for_selector("#entry:not([hidden])")
    view = host.view(gid)
    assert [(p["color"], p["name"]) for p in view["players"]] == [("blue", "Ana"), ("red", "Bo")]
    # The pens show the names; a phone joining red is offered Bo's name.
    wait_text(host, "[data-pen=red]", "Bo")
    bo = devices(server, name="bo")
    bo.page.set_viewport_size({"width": 320, "height": 568})
    bo.goto(f"/score/{gid}")
    bo.page.wait_for_selector("#join:not([hidden])")
    assert "Bo" in bo.text("[data-join=red]")
    bo.press("[data-join=red]")
    assert bo.page.input_value("#join-name") == "Bo"


def test_a_secret_card_entered_twice_is_refused_at_entry_on_the_entering_phone_only(server, devices):
    host, ana = devices(server, name="host"), devices(server, name="ana")
    status, made = host.api("POST", "/api/boards", {"mode": "family", "players": ["blue", "red", "white"],
                                                   "removed_districts": ["north"],
                                                   "names": {"blue": "Ana", "red": "Bo", "white": "Cy"}})
    assert status == 201, made
    gid = made["id"]
    status, _ = ana.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ana"})
    assert status == 200
    assert ana.api("POST", f"/api/games/{gid}/board/secret/blue", {"area": "lakes", "neighborhood": None})[0] == 200
    for d, (w, h) in ((host, (390, 844)), (ana, (320, 568))):
        d.page.set_viewport_size({"width": w, "height": h})
        d.goto(f"/score/{gid}")
        d.page.wait_for_selector("#entry:not([hidden])")
    view = host.view(gid)
    for d in (host, ana):
        d.wait_seq(view["seq"])
    n = len(server.events(gid))
    # The host enters red's cards: Lakes, entered for blue already, is refused at once, naming the entry to check.
    host.press("[data-pen=red]")
    host.press("#secret [data-area=lakes]")
    sentence = ("Bo (Red) cannot enter Lakes: it is entered for Ana (Blue) already, and the game has one of each card. "
                "Check Bo (Red)'s area card; if it really is Lakes, Ana (Blue)'s entry is the one to change.")   # names, issue 37
    msg_is(host, sentence)
    assert len(server.events(gid)) == n and host.view(gid) == view
    assert host.page.get_attribute("#secret [data-area=lakes]", "aria-pressed") == "false"   # not left looking chosen
    assert "Red – " + i18n.t("en", "score_not_entered") in host.text("[data-entered=red]") or \
        i18n.t("en", "score_not_entered") in host.text("[data-entered=red]")
    shots_at(host, "score-card-twice", PHONES + [(1280, 720)], at="#secret")
    # Nothing said on Ana's phone, which shows no other message and the same view.
    ana.page.wait_for_timeout(300)
    assert ana.text("#msg") == "" and ana.state()["seq"] == view["seq"]
    # Red's real card goes in.
    host.press("#secret [data-area=bridges]")
    host.wait_seq(view["seq"] + 1)
    # (the POST's answer, which clears the refusal, may arrive after the socket's view: wait for it, then check)
    host.page.wait_for_function("() => document.querySelector('#msg').innerText === ''", timeout=5000)
    assert host.text("#msg") == ""


# -- 4: a lobby's host abandons it --

def test_a_lobby_s_host_abandons_it_from_the_lobby(start_server, devices):
    server = start_server(env=FAST)
    host, red = devices(server, name="Ann"), devices(server, name="Bert")
    gid = new_game(host, ["blue", "red"])
    seat(host, gid, "blue", "Ann")
    seat(red, gid, "red", "Bert")
    for d in (host, red):
        d.page.set_viewport_size({"width": 320, "height": 568})
        d.goto(f"/g/{gid}")
        d.wait_phase("lobby")
    assert shown(host, "#abandon-lobby") and not shown(red, "#abandon-lobby")
    shots_at(host, "phone-lobby-abandon", PHONES, at="#host-lobby")
    n = len(server.events(gid))
    asked = []
    host.page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    host.press("#abandon-lobby")
    host.page.wait_for_timeout(300)
    assert asked == [i18n.t("en", "abandon_lobby_confirm", game=gid)] and len(server.events(gid)) == n
    host.page.once("dialog", lambda d: d.accept())
    host.press("#abandon-lobby")
    for d in (host, red):
        d.wait_phase("abandoned")
    kinds = [k for _, _, k, _ in server.events(gid)]
    assert kinds[n:] == ["abandon"]                      # appended through the one path
    wait_text(red, "#notice", i18n.t("en", "notice_abandoned"))
    assert not shown(red, "#lobby") and not shown(red, "#abandoned")   # no record of a game never started
    shots_at(red, "phone-lobby-abandoned", PHONES)


# -- 3: no call-over card under "Game abandoned" --

def test_after_an_abandon_the_phones_show_no_call_over_card(start_server, devices):
    server = start_server(env=FAST)
    host, red = devices(server, name="Ann"), devices(server, name="Bert")
    gid = new_game(host, ["blue", "red"])
    seat(host, gid, "blue", "Ann")
    seat(red, gid, "red", "Bert")
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    rng = random.Random(4)
    phones = {"blue": host, "red": red}
    for _ in range(60):        # to the end of the first call: the call-over card is up
        v = host.view(gid)
        if v["call_over"]:
            break
        d = phones[v["to_act"]]
        mine = d.view(gid)
        assert d.api("POST", f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.6), expect_seq=mine["seq"]))[0] == 200
    assert host.view(gid)["call_over"]
    for d in (host, red):
        d.page.set_viewport_size({"width": 390, "height": 844})
        d.goto(f"/g/{gid}")
        d.page.wait_for_selector("#callover:not([hidden])")
    host.page.once("dialog", lambda d: d.accept())
    host.press("#abandon")
    for d in (host, red):
        d.wait_phase("abandoned")
        d.page.wait_for_selector("#abandoned:not([hidden])")
        assert not shown(d, "#callover"), "a call-over card under Game abandoned"
    shots_at(red, "phone-abandoned-no-callover", PHONES)


# -- 6 and 5: the host role past a gone host --

def test_a_two_player_table_takes_the_host_role_past_a_gone_host_without_the_table_display(start_server, devices):
    server = start_server(env=FAST)              # the host counts as gone after 1 s here (120 s by default)
    host, red = devices(server, name="Anna"), devices(server, name="Bert")
    gid = new_game(host, ["red", "blue"])
    seat(host, gid, "blue", "Anna")
    seat(red, gid, "red", "Bert")
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    for d in (host, red):
        d.page.set_viewport_size({"width": 320, "height": 568})
        d.goto(f"/g/{gid}")
        d.wait_phase("playing")
    n = len(server.events(gid))
    host.close()                                  # Anna's phone is gone; no table display anywhere
    red.page.wait_for_selector("#claim-host:not([hidden])", timeout=15000)
    shots_at(red, "phone-2p-claim", PHONES)
    red.press("#claim-host")
    red.page.wait_for_selector("#host-tools:not([hidden])")
    wait_text(red, "#notice", "You are the host now.")   # its own phone: "you"
    assert not shown(red, "#claim-code-form")     # no code asked: nobody else could confirm, the wait did
    assert red.view(gid)["host"] is True and [k for _, _, k, _ in server.events(gid)][n:] == ["host"]
    shots_at(red, "phone-2p-host-taken", PHONES)


def test_the_claim_sentence_says_where_the_code_is_shown_and_where_it_is_typed_in_each_language(start_server, devices):
    server = start_server(env=FAST)
    host = devices(server, name="Anna")
    red, white, gray = devices(server, lang="en", name="Bert"), devices(server, lang="de", name="Chloé"), \
        devices(server, lang="fr", name="Dana")
    gid = new_game(host, ["red", "white", "gray", "blue"])
    for d, c in ((host, "blue"), (red, "red"), (white, "white"), (gray, "gray")):
        seat(d, gid, c, d.name)
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    for d in (host, red, white, gray):
        d.page.set_viewport_size({"width": 390, "height": 844})
        d.goto(f"/g/{gid}")
        d.wait_phase("playing")
    host.close()
    red.page.wait_for_selector("#claim-host:not([hidden])", timeout=15000)
    red.press("#claim-host")
    words = {"en": ("shown on the table display", "You asked for the host role", "you type below"),   # Bert's own phone
             "de": ("den die Tischanzeige zeigt", "Bert (Rot) möchte", "oder Bert (Rot) gibt den Code ein"),
             "fr": ("affiché sur l’écran de la table", "Bert (Rouge) demande", "ou Bert (Rouge) saisit le code")}
    for d, lang in ((red, "en"), (white, "de"), (gray, "fr")):
        d.page.wait_for_selector("#claim-text:not(:empty)")
        text = d.text("#claim-text")
        assert all(w in text for w in words[lang]), (lang, text)
    shots_at(white, "phone-claim-sentence-de", PHONES, at="#claim")


# -- 7: a watcher --

def test_a_watcher_is_offered_only_take_a_seat_with_a_code_when_every_seat_is_taken(start_server, devices):
    server = start_server(env=FAST)
    host, red = devices(server, name="Ann"), devices(server, name="Bert")
    gid = new_game(host, ["blue", "red"])
    seat(host, gid, "blue", "Ann")
    seat(red, gid, "red", "Bert")
    watcher = devices(server, name="Watcher")
    for phase in ("lobby", "playing"):
        if phase == "playing":
            assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
        watcher.page.set_viewport_size({"width": 320, "height": 568})
        watcher.goto(f"/g/{gid}")
        watcher.wait_phase(phase)
        watcher.page.wait_for_selector("#code-open:not([hidden])")
        assert watcher.text("#code-open") == i18n.t("en", "have_code")
        seats = watcher.page.eval_on_selector_all(
            "#join-colors button, #code-colors button, [data-join]", "els => els.filter(e => e.offsetParent).length")
        assert seats == 0, f"{seats} seat buttons on a watcher's page ({phase})"
        assert not shown(watcher, "#code-form") and not shown(watcher, "#join")
        if phase == "playing":
            shots_at(watcher, "phone-watcher", PHONES)
    # One tap opens the way in: the colours, the code.
    watcher.press("#code-open")
    watcher.page.wait_for_selector("#code-form:not([hidden])")
    assert watcher.page.eval_on_selector_all("#code-colors button", "els => els.length") == 2
    assert not shown(watcher, "#code-open")
