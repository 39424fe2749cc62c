"""A lost phone costs the table under 45 s: with the host's phone and the phone of the seat to act both gone, a new
phone has that seat back through the table's code (the seat's cards reach nobody else on the way), and every
screen counts down for the seat as for the host. Run with short waits; the defaults' sum is checked apart."""
from __future__ import annotations

import http.cookiejar
import json
import re
import time
from types import SimpleNamespace

from companion import limits
from companion.app import DEFAULTS, ENV
from pages_helpers import browser, devices, shots_at  # noqa: F401
from server_helpers import Phone, create_game, seat_and_start

SHORT = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_SEAT_AWAY": "2", "COMPANION_SEAT_MOVE_WAIT": "1"}
# The host's wait stays at its default (120 s): the seat the game waits for is not held up by it.
HUMAN = 15   # seconds for a person to pick the colour, read the table's code and type it


def test_the_default_waits_give_a_lost_seat_back_in_under_45_seconds():
    """The product's own defaults: the seat to act may be asked for after SEAT_AWAY, then every screen announces
    the move SEAT_MOVE_WAIT; with a person's time to type the code that stays under 45 s."""
    assert DEFAULTS["SEAT_AWAY"] == limits.SEAT_AWAY and DEFAULTS["SEAT_MOVE_WAIT"] == limits.SEAT_MOVE_WAIT
    assert ENV["COMPANION_SEAT_AWAY"][0] == "SEAT_AWAY" and ENV["COMPANION_SEAT_MOVE_WAIT"][0] == "SEAT_MOVE_WAIT"
    assert min(limits.SEAT_AWAY, limits.HOST_AWAY) + limits.SEAT_MOVE_WAIT + HUMAN < 45


def kiosk(server) -> Phone:
    """The Pi's own screen: http://localhost:PORT from the Pi itself (table powers, the rescue codes)."""
    return Phone(SimpleNamespace(origin=f"http://localhost:{server.port}", ws_base=f"ws://localhost:{server.port}"))


def until(what, timeout: float = 30.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(step)


def to_act_red(gid: str, phones: dict) -> None:
    """Pass until Red is to act (the opener of a call bids its lowest value instead)."""
    for _ in range(12):
        v = phones["blue"].view(gid)
        if v["to_act"] == "red":
            return
        who = phones[v["to_act"]]
        legal = who.view(gid)["legal"]
        if legal["pass"]:
            r = who.post(f"/api/games/{gid}/actions", {"pass": True, "expect_seq": v["seq"]})
        else:
            nb, values = next(iter(legal["neighborhoods"].items()))
            r = who.post(f"/api/games/{gid}/actions", {"bid": nb, "value": min(values), "expect_seq": v["seq"]})
        assert r.status == 200, r
    raise AssertionError("red never came to act")


def test_with_the_host_and_the_seat_to_act_gone_a_new_phone_has_the_seat_in_under_45_seconds(start_server):
    server = start_server(env=SHORT)
    ann, bea, carl = Phone(server), Phone(server), Phone(server)   # Ann (blue) hosts
    gid = create_game(ann, ["blue", "red", "white"], seed=7)
    seat_and_start(gid, ann, {"blue": ann, "red": bea, "white": carl})
    phones = {"blue": ann, "red": bea, "white": carl}
    to_act_red(gid, phones)
    table = kiosk(server)
    tsock, csock = table.ws(gid), carl.ws(gid)
    asock, bsock = ann.ws(gid), bea.ws(gid)
    until(lambda: not (csock.last or {}).get("offline"))
    red_cards = bea.view(gid)["you"]

    # Béa's phone and the host's are lost on Béa's turn.
    lost = time.monotonic()
    asock.close()
    bsock.close()
    seen = until(lambda: csock.last if set(csock.last.get("offline", ())) == {"blue", "red"} else None, 10)
    assert seen, csock.last
    # Every screen counts down for the seat as for the host.
    assert 0 < seen["seat_waits"]["red"] <= 2 and seen["seat_waits"]["blue"] > 60, seen["seat_waits"]
    assert until(lambda: (tsock.last or {}).get("seat_waits", {}).get("red") is not None, 10), tsock.last
    assert tsock.last["seat_waits"]["red"] <= 2

    # A new phone picks Red at once: too soon, it is told how long (the seat's own wait, not the host's).
    new = Phone(server)
    new.capture = True
    r = new.post(f"/api/games/{gid}/seats/red/rescue")
    if r.status == 409:
        assert r.json["code"] == "seat_not_gone" and "2 seconds" in r.json["error"], r
        assert new.view(gid)["seat_waits"]["red"] in (1, 2)
    # The wait ends: the phone asks, the Pi's screen alone shows its code, it types it.
    r = until(lambda: (lambda q: q if q.status == 200 else None)(new.post(f"/api/games/{gid}/seats/red/rescue")), 20)
    assert r and r.json["seat_move"] == {"color": "red", "stage": "code"} and "seat_move_codes" not in r.json, r
    assert "seat_move_codes" not in carl.view(gid)
    code = until(lambda: (tsock.last or {}).get("seat_move_code"), 10)
    assert code and code["color"] == "red", tsock.last
    r = new.post(f"/api/games/{gid}/seats/red/rescue", {"code": code["code"]})
    assert r.status == 200 and r.json["seat_move"]["stage"] == "moving" and "you" not in r.json, r
    seated = until(lambda: (lambda v: v if (v.get("you") or {}).get("color") == "red" else None)(new.view(gid)), 20)
    took = time.monotonic() - lost
    assert seated, new.view(gid)
    assert took < 45, took
    # The seat came back whole: its cards, its turn; nothing of them reached the new phone before.
    assert seated["you"] == red_cards and seated["to_act"] == "red"
    before = [json.loads(body) for _, _, _, body in new.seen[:-1]]
    assert before and not any("you" in v or "area" in json.dumps(v) for v in before)
    assert any(k == "move" and json.loads(b) == {"color": "red", "name": None, "confirmed": "table"}
               for _, _, k, b in server.events(gid))
    r = new.post(f"/api/games/{gid}/actions", {"pass": True, "expect_seq": seated["seq"]})
    assert r.status in (200, 422), r   # the table moves on (or the rules say why Red must bid)


def test_in_chromium_every_screen_counts_down_and_the_new_phone_is_told_where_the_code_appears(start_server, devices):
    """The same loss in real pages: the table display and Carl's phone count down for Béa's seat; the new phone
    that picks Red is told at once what happens and where its code will appear; it asks, types the code the
    table display shows and has the seat back, with the game waiting on it, well inside 45 s."""
    server = start_server(env=dict(SHORT, COMPANION_SEAT_AWAY="6"))
    ann, bea, carl = devices(server, name="Ann"), devices(server, name="Béa"), devices(server, name="Carl")
    status, data = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red", "white"],
                                                  "removed_districts": ["west"], "seed": 7})
    assert status == 201, data
    gid = data["id"]
    for d, color in ((ann, "blue"), (bea, "red"), (carl, "white")):
        assert d.api("POST", f"/api/games/{gid}/seats/{color}", {"name": d.name})[0] == 200
    assert ann.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    to_act_red(gid, {"blue": _api_phone(server, ann), "red": _api_phone(server, bea), "white": _api_phone(server, carl)})
    table = devices(server, table=True)
    table.goto(f"http://localhost:{server.port}/table")
    for d in (ann, bea, carl):
        d.goto(f"/g/{gid}")
    seq = carl.view(gid)["seq"]
    for d in (ann, bea, carl, table):
        d.wait_seq(seq)

    lost = time.monotonic()
    ann.close()
    bea.close()
    wait = "In 0:0"
    _wait_text(table, "#offline", "Béa (Red)'s phone is offline. " + wait)   # counted down, as for the host
    _wait_text(table, "#offline", "Ann (Blue)'s phone is gone. In 1:")
    _wait_text(carl, "#seat-gone", "Béa (Red)'s phone is offline. " + wait)
    shots_at(table, "lost-phone-table", [(1920, 1080), (1280, 720)])
    shots_at(carl, "lost-phone-other", [(390, 844), (320, 568)], "#seat-gone")

    new = devices(server, name="new")
    new.goto(f"/g/{gid}")
    new.press("#code-open")
    new.page.locator("#code-colors button", has_text="Red").tap()
    hint = new.text("#seat-hint")
    assert ("you can ask for the seat here; the table display then shows your code" in hint
            or "tap \"My phone is gone\" below" in hint), hint
    shots_at(new, "lost-phone-new", [(390, 844), (320, 568)], "#code-form")
    new.page.locator("#rescue-ask").wait_for(state="visible", timeout=20000)
    assert "the code the table display shows" in new.text("#seat-hint")
    new.press("#rescue-ask")
    # The code is on the table display alone (the Pi's own screen): the new phone's person reads it there.
    table.page.locator("#seat-asks .code").wait_for(state="visible")
    code = table.text("#seat-asks .code").strip()
    assert re.fullmatch(r"[2-9A-Z]{6}", code), code
    shots_at(table, "lost-phone-table-code", [(1920, 1080), (1280, 720)])
    new.page.fill("#code-value", code)
    new.page.locator("#code-form button[type=submit]").tap()
    deadline = time.monotonic() + 30
    while (new.view(gid).get("you") or {}).get("color") != "red" and time.monotonic() < deadline:
        time.sleep(0.1)
    took = time.monotonic() - lost
    assert (new.view(gid).get("you") or {}).get("color") == "red" and took < 45, took
    new.page.locator("#turn").wait_for(state="visible")   # the game waits on Red: the new phone plays it


def _api_phone(server, device) -> Phone:
    """A Phone with the page's cookies: the API as that device."""
    p = Phone(server)
    for c in device.ctx.cookies():
        p.jar.set_cookie(http.cookiejar.Cookie(0, c["name"], c["value"], None, False, "127.0.0.1", False, False,
                                               "/", True, False, None, False, None, None, {}))
    return p


def _wait_text(device, selector: str, text: str, timeout: float = 15000) -> None:
    device.page.wait_for_function("([s, t]) => { const e = document.querySelector(s);"
                                  " return !!e && !e.hidden && e.textContent.includes(t); }",
                                  arg=[selector, text], timeout=timeout)
