"""A whole evening in real Chromium: a lost host, a seat moved to a new phone, rematch, abandon, the front
door and a seat race, on the real server; screenshots of the pages at phone and table sizes."""
from __future__ import annotations

import json
import random
import time

from companion.lang import i18n
from companion.game.record import replay
from pages_helpers import browser, shots_at, card_strings, dealt_cards, devices, frame_leaks  # noqa: F401
from server_helpers import choose, score_record

FAST = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_HOST_AWAY": "1"}
PHONE_SIZES = [(390, 844), (320, 568)]
TABLE_SIZES = [(1920, 1080), (1280, 720)]


def shots(device, name: str, table: bool = False, at: str = "") -> None:
    shots_at(device, name, TABLE_SIZES if table else PHONE_SIZES, at)


def table_display(devices, server):
    """The Pi's own screen: its kiosk opens http://localhost:PORT/table on the Pi."""
    t = devices(server, table=True)
    t.page.goto(f"http://localhost:{server.port}/table")
    return t


def new_game(host, players, mode="family", removed=None) -> str:
    removed = {4: [], 3: ["west"], 2: ["north", "east"]}[len(players)] if removed is None else removed
    status, data = host.api("POST", "/api/games", {"mode": mode, "players": players, "removed_districts": removed})
    assert status == 201, data
    return data["id"]


def seat(device, gid: str, color: str, name: str) -> None:
    status, data = device.api("POST", f"/api/games/{gid}/seats/{color}", {"name": name})
    assert status == 200, data


def move(device, gid: str, rng) -> dict:
    """One move for this device's seat, chosen from the legal ones the server sent it."""
    view = device.view(gid)
    mv = choose(view, rng, 0.6)
    status, data = device.api("POST", f"/api/games/{gid}/actions", dict(mv, expect_seq=view["seq"]))
    assert status == 200, data
    return data


def wait_text(device, selector: str, text: str, timeout: float = 15000) -> None:
    device.page.wait_for_function("([s, t]) => { const e = document.querySelector(s);"
                                  " return !!e && !e.hidden && e.textContent.includes(t); }",
                                  arg=[selector, text], timeout=timeout)


def test_host_s_browser_closed_mid_call_another_player_takes_the_host_role_and_passes_for_them(start_server, devices):
    server = start_server(env=FAST)
    rng = random.Random(11)
    host, red, white = devices(server, name="Anna"), devices(server, name="Bert"), devices(server, name="Chloé")
    gid = new_game(host, ["red", "white", "blue"])       # red opens; Anna, the host, plays blue
    seat(host, gid, "blue", "Anna")
    seat(red, gid, "red", "Bert")
    seat(white, gid, "white", "Chloé")
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    table = table_display(devices, server)
    for d in (host, red, white):
        d.goto(f"/g/{gid}")
    # Mid-call: red opens with a bid, then Anna's phone dies.
    view = red.view(gid)
    nb = sorted(view["legal"]["neighborhoods"])[0]
    assert red.api("POST", f"/api/games/{gid}/actions", {"bid": nb, "value": view["legal"]["neighborhoods"][nb][0]})[0] == 200
    seq = red.view(gid)["seq"]
    for d in (host, red, white, table):
        d.wait_seq(seq)
    n_before = len(server.events(gid))
    host.close()
    wait_text(table, "#offline", "Anna (Blue)'s phone is gone.")     # the host: when a player may take over (issue 20)
    shots(table, "table-phone-offline", table=True)
    # Not before the host has been gone a while: then Bert's page offers the claim.
    red.page.wait_for_selector("#claim-host:not([hidden])", timeout=15000)
    red.press("#claim-host")
    wait_text(table, "#claim-code", "Code:")
    code = table.text("#claim-code").rsplit(" ", 1)[1]
    shots(table, "table-host-claim", table=True)
    wait_text(white, "#claim-text", "Bert (Red) asks for the host role")   # issue 37: a name, with its colour
    assert white.visible("#approve-host") and not white.visible("#claim-code-form")
    # A wrong code first: refused with a sentence, nothing in the log.
    red.page.fill("#claim-code", "ZZZZ" if code != "ZZZZ" else "YYYY")
    red.press("#claim-code-form button")
    wait_text(red, "#msg", "That code is wrong")
    assert len(server.events(gid)) == n_before
    red.page.fill("#claim-code", code.lower())
    red.press("#claim-code-form button")
    red.page.wait_for_selector("#host-tools:not([hidden])")
    wait_text(white, "#notice", "Bert (Red) is the host now.")
    assert red.view(gid)["host"] is True

    # Play on. When blue is to act, Bert taps "Pass for Anna (Blue)" on his page; to the end.
    passes = 0
    shot = False
    while True:
        view = red.view(gid)
        if view["phase"] != "playing":
            break
        if view["to_act"] == "blue":
            red.wait_seq(view["seq"])
            red.page.wait_for_selector("#pass-for:not([hidden])")
            if not shot:
                shots(red, "phone-host-tools", at="#host-tools")
                shot = True
            assert red.text("#pass-for") == "Pass for Anna (Blue)"
            red.press("#pass-for")
            red.wait_seq(view["seq"] + 1)
            if red.view(gid)["seq"] == view["seq"]:
                raise AssertionError(red.text("#msg"))
            passes += 1
            continue
        move({"red": red, "white": white}[view["to_act"]], gid, rng)
    assert passes > 0 and red.view(gid)["phase"] == "finished"
    by_host = [json.loads(b) for _, _, k, b in server.events(gid) if k == "action" and "by_host" in b]
    assert len(by_host) == passes and all(b["player"] == "blue" for b in by_host)


def test_a_seat_moves_to_a_fresh_browser_with_the_code_old_sees_no_cards_new_sees_exactly_that_seat_s(start_server, devices):
    server = start_server(env=FAST)
    host, red, white = devices(server, name="Ann"), devices(server, name="Bert"), devices(server, name="Chloé")
    gid = new_game(host, ["blue", "red", "white"], mode="expert")
    for d, c, n in ((host, "blue", "Ann"), (red, "red", "Bert"), (white, "white", "Chloé")):
        seat(d, gid, c, n)
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    cards = dealt_cards(server, gid)
    table = table_display(devices, server)
    for d in (host, red, white):
        d.goto(f"/g/{gid}")
        d.wait_phase("playing")
    red.page.wait_for_selector("#move-seat:not([hidden])")
    red.press("#move-seat")
    wait_text(red, "#move-code", "Code for your seat")   # its own phone says "you"
    code = red.text("#move-code").split(": ", 1)[1].split(".", 1)[0]
    shots(red, "phone-move-code", at="#seat-tools")
    old_frames = len(red.frames)

    fresh = devices(server, name="Bert again")
    fresh.goto(f"/g/{gid}")
    fresh.press("#code-open")      # folded while every seat is taken (issue 30)
    fresh.page.wait_for_selector("#code-form:not([hidden])")
    fresh.press('#code-colors button:has(.c-red)')
    assert not fresh.visible("#code-name")      # the seat keeps its name
    fresh.page.fill("#code-value", code)
    shots(fresh, "phone-code-form", at="#code-form")
    fresh.press("#code-form button[type=submit]")
    fresh.page.wait_for_selector("#show-cards:not([hidden])")
    for d in (host, white, red, table):
        wait_text(d, "#notice", "Bert (Red)'s seat moved to a new phone.")
    wait_text(fresh, "#notice", "Your seat moved to this phone.")
    shots(table, "table-seat-moved", table=True)
    shots(white, "phone-seat-moved")
    # The new phone: exactly red's cards. The old one: a watcher, no cards, no turn.
    fresh.press("#show-cards")
    panel = fresh.text("#cards-body")
    for s in card_strings("en", "expert", *cards["red"]):
        assert s in panel
    for c in ("blue", "white"):
        for s in card_strings("en", "expert", *cards[c]):
            assert s not in panel
    assert not red.visible("#show-cards") and not red.visible("#seat-tools")
    assert "you" not in red.view(gid)
    red_words = card_strings("en", "expert", *cards["red"])
    assert red.state(red_words)["leaks"] == []
    # From the move on (frames before it, e.g. a presence change as the new phone connected, still were red's own).
    moved = red.view(gid)["notice"]["seq"]
    later = [f for f in red.frames[old_frames:] if json.loads(f)["seq"] >= moved]
    assert later and all(json.loads(f).get("you") is None for f in later)
    assert frame_leaks(later, None, cards) == []
    assert frame_leaks(fresh.frames, "red", cards) == []


def test_rematch_moves_every_phone_and_the_table_to_the_new_lobby(start_server, devices):
    server = start_server(env=FAST)
    colors = ["blue", "red", "white", "gray"]
    names = dict(zip(colors, ["Ann", "Bert", "Chloé", "Dirk"]))
    ph = {c: devices(server, name=names[c]) for c in colors}
    gid = new_game(ph["blue"], colors, mode="expert")
    for c in colors:
        seat(ph[c], gid, c, names[c])
    assert ph["blue"].api("POST", f"/api/games/{gid}/start", {})[0] == 200
    first = dealt_cards(server, gid)
    rng = random.Random(4)
    while True:
        v = ph["blue"].view(gid)
        if v["phase"] != "playing":
            break
        move(ph[v["to_act"]], gid, rng)
    table = table_display(devices, server)
    for d in ph.values():
        d.goto(f"/g/{gid}")
        d.wait_phase("finished")
    table.wait_phase("finished")
    ph["blue"].page.wait_for_selector("#rematch:not([hidden])")
    assert not ph["red"].visible("#rematch")
    shots(ph["blue"], "phone-end-rematch", at="#rematch")
    ph["blue"].press("#rematch-rotate")
    for d in ph.values():
        d.page.wait_for_url(f"**/g/*")
        d.page.wait_for_function("g => !location.pathname.endsWith(g)", arg=gid)
        d.wait_phase("lobby")
    new = ph["blue"].page.url.rsplit("/g/", 1)[1]
    assert new != gid
    table.page.wait_for_function("g => document.querySelector('#join-qr img').src.includes(g)", arg=new)
    table.wait_phase("lobby")
    # Same seats and names, no rescan: every phone is already seated; red starts now (rotated).
    for c, d in ph.items():
        v = d.view(new)
        assert v["you"]["color"] == c and v["you"]["name"] == names[c]
        assert not d.visible("#join")
    assert [p["color"] for p in ph["blue"].view(new)["players"]] == ["red", "white", "gray", "blue"]
    ph["blue"].page.wait_for_selector("#start:not([hidden])")
    ph["blue"].press("#start")
    for d in [*ph.values(), table]:
        d.wait_phase("playing")
    assert dealt_cards(server, new) != first
    status, record = ph["gray"].api("GET", f"/api/games/{gid}/record")
    assert status == 200 and score_record(record)["finished"] is True


def test_abandon_is_logged_its_record_replays_and_the_table_moves_on(start_server, devices, tmp_path):
    server = start_server(env=FAST)
    host, red = devices(server, name="Ann"), devices(server, name="Bert")
    gid = new_game(host, ["blue", "red"])
    seat(host, gid, "blue", "Ann")
    seat(red, gid, "red", "Bert")
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    rng = random.Random(2)
    for _ in range(7):
        v = host.view(gid)
        move({"blue": host, "red": red}[v["to_act"]], gid, rng)
    table = table_display(devices, server)
    table.wait_phase("playing")
    host.goto(f"/g/{gid}")
    red.goto(f"/g/{gid}")
    host.wait_phase("playing")
    assert not red.visible("#abandon")
    last = host.view(gid)
    n = len(server.events(gid))
    dialogs = []
    host.page.once("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    host.press("#abandon")
    host.page.wait_for_timeout(300)
    assert dialogs and gid in dialogs[0] and len(server.events(gid)) == n     # dismissed: nothing happens
    host.page.once("dialog", lambda d: d.accept())
    host.press("#abandon")
    for d in (host, red):
        d.wait_phase("abandoned")
    assert [k for _, _, k, _ in server.events(gid)][-1] == "abandon"
    red.page.wait_for_selector("#abandoned-record:not([hidden])")
    shots(red, "phone-abandoned")
    with red.page.expect_download() as dl:
        red.press("#abandoned-record")
    path = tmp_path / "partial.json"
    dl.value.save_as(path)
    record = json.loads(path.read_text())
    assert len(record["actions"]) == last["actions"] == 7
    assert score_record(record)["finished"] is False
    state = replay(record)
    assert {nb: b.player for nb, b in state.built.items()} == {nb: b["color"] for nb, b in last["built"].items()}
    assert state.to_act_color == last["to_act"]
    # The table display moves on: no game shown (it polls every 5 s).
    table.page.wait_for_function("() => document.getElementById('app').dataset.phase === 'none'", timeout=15000)
    # Said as such (issue 20: it said "No game yet"), above the front door's code to start the next one.
    assert table.text("#nogame h2") == i18n.t("en", "table_abandoned", game=gid) + " " + i18n.t("en", "scan_to_start")


def test_the_front_door_shows_the_game_first_and_a_watcher_cannot_switch_the_table(start_server, devices):
    server = start_server(env=FAST)
    host, red, watcher = devices(server, name="Ann"), devices(server, name="Bert"), devices(server, name="Eve")
    gid = new_game(host, ["blue", "red"])
    seat(host, gid, "blue", "Ann")
    seat(red, gid, "red", "Bert")
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    table = table_display(devices, server)
    table.wait_phase("playing")
    watcher.goto("/")
    watcher.page.wait_for_selector("#front:not([hidden])")
    assert watcher.text("#front-title") == f"Game {gid} is on the table"
    assert "Ann" in watcher.text("#front-players") and "Bert" in watcher.text("#front-players")
    # The game comes first on the page, the new-game form second.
    y = watcher.page.evaluate("() => [document.getElementById('front').getBoundingClientRect().top,"
                              " document.getElementById('setup').getBoundingClientRect().top]")
    assert y[0] < y[1]
    shots(watcher, "front-door")
    # The watcher makes a game anyway: told it will not be shown, and the table keeps the game being played.
    said = []
    watcher.page.once("dialog", lambda d: (said.append(d.message), d.accept()))
    watcher.press("#create")
    watcher.page.wait_for_url("**/g/*")
    assert said and gid in said[0] and "stays on the table display" in said[0]
    time.sleep(6)   # longer than the table display's 5 s poll
    assert table.state()["phase"] == "playing"
    assert gid in table.page.eval_on_selector("#join-qr img", "i => i.src")
    n = len(server.events(gid))
    assert watcher.api("POST", f"/api/games/{gid}/abandon", {"confirm": gid})[0] == 403
    assert len(server.events(gid)) == n
    # The host's new game does take the table, after a confirm naming the game that stops being shown.
    host.goto("/")
    host.page.wait_for_selector("#front:not([hidden])")
    said.clear()
    host.page.once("dialog", lambda d: (said.append(d.message), d.accept()))
    host.press("#create")
    host.page.wait_for_url("**/g/*")
    assert said and f"stops showing game {gid}" in said[0]
    newest = host.page.url.rsplit("/g/", 1)[1]
    table.page.wait_for_function("g => document.querySelector('#join-qr img').src.includes(g)", arg=newest,
                                 timeout=15000)


def test_seat_race_two_browsers_pick_the_same_colour_within_milliseconds(start_server, devices):
    server = start_server(env=FAST)
    host = devices(server, name="Ann")
    gid = new_game(host, ["blue", "red", "white"])
    seat(host, gid, "blue", "Ann")
    a, b = devices(server, name="Bert"), devices(server, name="Chloé")
    for d, name in ((a, "Bert"), (b, "Chloé")):
        d.goto(f"/g/{gid}")
        d.page.wait_for_selector("#join:not([hidden])")
        assert d.page.eval_on_selector_all("#join-colors button[aria-pressed=true]", "b => b.length") == 0
        d.press("#join-colors button:has(.c-red)")
        d.page.fill("#join-name", name)
    n = len(server.events(gid))
    at = a.page.evaluate("() => Date.now()") + 400
    for d in (a, b):
        d.page.evaluate("t => setTimeout(() => document.querySelector('#join button[type=submit]').click(),"
                        " t - Date.now())", at)
    time.sleep(1.5)
    views = {d.name: d.view(gid) for d in (a, b)}
    seated = [n_ for n_, v in views.items() if "you" in v]
    assert len(seated) == 1, views
    loser = a if seated[0] == "Chloé" else b
    assert "you" not in views[loser.name]
    wait_text(loser, "#msg", "Red was taken a moment ago: pick another colour.")
    assert loser.page.eval_on_selector_all("#join-colors button[aria-pressed=true]", "b => b.length") == 0
    assert len(server.events(gid)) == n + 1
    shots(loser, "phone-seat-race")
    # Submitting again without a colour seats nobody anywhere.
    loser.press("#join button[type=submit]")
    wait_text(loser, "#msg", "Pick a colour first.")
    assert "you" not in loser.view(gid) and len(server.events(gid)) == n + 1


def test_host_removes_an_empty_seat_in_the_lobby(start_server, devices):
    server = start_server(env=FAST)
    host = devices(server, name="Ann")
    gid = new_game(host, ["blue", "red", "white", "gray"])
    seat(host, gid, "blue", "Ann")
    table = table_display(devices, server)
    host.goto(f"/g/{gid}")
    host.page.wait_for_selector("#lobby-seats button")
    host.press('#lobby-seats li:has(.c-gray) button')
    wait_text(host, "#notice", "Gray's seat was removed")
    wait_text(table, "#notice", "Gray's seat was removed")
    v = host.view(gid)
    assert [p["color"] for p in v["players"]] == ["blue", "red", "white"] and len(v["removed_districts"]) == 1
    shots(host, "phone-seat-removed")
    shots(table, "table-seat-removed", table=True)


def test_the_setup_form_remembers_the_last_game_and_never_starts_invalid(start_server, devices):
    server = start_server(env=FAST)
    host = devices(server, name="Ann")
    host.goto("/")
    # A fresh form: three colours ticked come with one district out, so Create works as it stands.
    assert host.page.eval_on_selector_all("#removed input:checked", "els => els.length") == 1
    host.page.uncheck("#seats input[value=white]")     # two players: two adjacent districts out
    assert host.page.eval_on_selector_all("#removed input:checked", "els => els.length") == 2
    host.page.check("input[name=mode][value=expert]")
    host.page.check("input[name=deal][value=physical]")
    removed = host.page.eval_on_selector_all("#removed input:checked", "els => els.map(e => e.value)")
    host.press("#create")
    host.page.wait_for_url("**/g/*")
    gid = host.page.url.rsplit("/g/", 1)[1]
    v = host.view(gid)
    assert (v["mode"], v["deal"], [p["color"] for p in v["players"]]) == ("expert", "physical", ["blue", "red"])
    assert v["removed_districts"] == sorted(removed)
    # The next time, the form holds the last game's choices.
    host.goto("/")
    host.page.wait_for_selector("#create")
    assert host.page.is_checked("input[name=mode][value=expert]")
    assert host.page.is_checked("input[name=deal][value=physical]")
    assert host.page.eval_on_selector_all("#seats input:checked", "els => els.map(e => e.value)") == ["blue", "red"]
    assert sorted(host.page.eval_on_selector_all("#removed input:checked", "els => els.map(e => e.value)")) == sorted(removed)
