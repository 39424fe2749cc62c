"""Issue 21's legitimate paths in real Chromium on the real server: a gone phone's seat moves to a new phone
with the code only the Pi's screen shows, announced on every screen, cancelled once by the phone coming
back, then moved; the display code asked for on the Pi's screen and typed on a phone page."""
from __future__ import annotations

import json

from pages_helpers import browser, shots_at, card_strings, dealt_cards, devices, frame_leaks  # noqa: F401

FAST = {"COMPANION_RATE_LIMIT": "1000", "COMPANION_WRITE_RATE_LIMIT": "1000", "COMPANION_HOST_AWAY": "1",
        "COMPANION_SEAT_MOVE_WAIT": "30"}   # the announcement: long enough to reopen a tab and cancel, however slow
PHONE_SIZES = [(390, 844), (320, 568)]
TABLE_SIZES = [(1920, 1080), (1280, 720), (1024, 600)]


def shots(device, name: str, table: bool = False, at: str = "") -> None:
    shots_at(device, name, TABLE_SIZES if table else PHONE_SIZES, at)


def wait_text(device, selector: str, text: str, timeout: float = 15000) -> None:
    device.page.wait_for_function("([s, t]) => { const e = document.querySelector(s);"
                                  " return !!e && !e.hidden && e.textContent.includes(t); }",
                                  arg=[selector, text], timeout=timeout)


def hidden(device, selector: str) -> None:
    device.page.wait_for_function("s => { const e = document.querySelector(s); return !e || e.hidden; }",
                                  arg=selector)


def kiosk(devices, server):
    """The Pi's own screen: its kiosk opens http://localhost:PORT/table on the Pi."""
    t = devices(server, table=True)
    t.page.goto(f"http://localhost:{server.port}/table")
    return t


def reopen(device, gid: str) -> None:
    """The same phone (same cookies) opens the page again: a new tab after the old one was closed."""
    device.page = device.ctx.new_page()
    device.page.on("websocket", lambda ws: ws.on("framereceived", device._frame))
    device.goto(f"/g/{gid}")


def test_a_gone_phone_s_seat_moves_with_the_table_s_code_and_the_returning_phone_can_cancel(start_server, devices):
    server = start_server(env=FAST)
    host, red, white = devices(server, name="Ann"), devices(server, name="Bert"), devices(server, name="Chloé")
    status, data = host.api("POST", "/api/games", {"mode": "expert", "players": ["blue", "red", "white"],
                                                   "removed_districts": ["west"]})
    gid = data["id"]
    for d, c, n in ((host, "blue", "Ann"), (red, "red", "Bert"), (white, "white", "Chloé")):
        assert d.api("POST", f"/api/games/{gid}/seats/{c}", {"name": n})[0] == 200
    assert host.api("POST", f"/api/games/{gid}/start", {})[0] == 200
    cards = dealt_cards(server, gid)
    table = kiosk(devices, server)
    for d in (host, red, white):
        d.goto(f"/g/{gid}")
        d.wait_phase("playing")
    # The host's page has no seat powers left: no "free this seat", no code for another seat.
    host.page.wait_for_selector("#host-tools:not([hidden])")
    assert host.page.locator("#host-seats button", has_text="Free this seat").count() == 0
    assert host.page.locator("#host-seats button", has_text="Code for a new phone").count() == 0

    # Chloé's phone dies (its tab is gone); a new phone asks for the seat once it has been gone a while.
    white.page.close()
    wait_text(table, "#offline", "Chloé (White)'s phone is offline")
    fresh = devices(server, name="Chloé's new phone")
    fresh.goto(f"/g/{gid}")
    fresh.press("#code-open")      # folded while every seat is taken (issue 30)
    fresh.page.wait_for_selector("#code-form:not([hidden])")
    fresh.press('#code-colors button:has(.c-white)')
    fresh.page.wait_for_selector("#rescue-ask:not([hidden])", timeout=15000)
    # A stranger asks for the seat first (issue 31): its ask stands beside the player's, and holds nothing.
    stranger = devices(server, name="stranger")
    stranger.goto(f"/g/{gid}")
    assert stranger.api("POST", f"/api/games/{gid}/seats/white/rescue", {})[0] == 200
    fresh.press("#rescue-ask")
    wait_text(fresh, "#rescue-hint", "Your ask is number 2: type the code the table display shows beside it.")
    # The codes are on the Pi's screen only, each under its ask's number; every phone says a new phone asks.
    wait_text(table, "#seat-move-ask", "Move Chloé (White)'s seat to a new phone? Type this code on that phone:")
    wait_text(table, "#seat-asks li:nth-child(2)", "Ask 2 for Chloé (White)'s seat")
    assert "never sat at this table" in table.text("#seat-asks li:nth-child(2)")
    for d in (host, red):
        wait_text(d, "#seat-move-text", "A new phone asks for Chloé (White)'s seat: the code is on the table display.")
        assert "seat_move_code" not in d.view(gid) and "seat_move_codes" not in d.view(gid)
    shots(table, "table-seat-move-code", table=True)
    shots(fresh, "phone-seat-move-number", at="#code-form")
    code = table.text("#seat-asks li:nth-child(2) .code").strip()
    assert len(code) == 6
    # The table turns the stranger's ask down on the Pi's screen: only the player's stays.
    table.page.click("#seat-asks li:nth-child(1) button")
    table.page.wait_for_function("() => document.querySelectorAll('#seat-asks li').length === 1")
    assert table.text("#seat-asks .code").strip() == code
    assert stranger.api("POST", f"/api/games/{gid}/seats/white/rescue", {})[0] == 429
    fresh.page.fill("#code-value", "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY")
    fresh.press("#code-form button[type=submit]")
    wait_text(fresh, "#msg", "That code is wrong")
    fresh.page.fill("#code-value", code.lower())
    shots(fresh, "phone-seat-move-ask", at="#code-form")
    fresh.press("#code-form button[type=submit]")
    # Every screen announces it; Chloé's phone comes back in time and cancels.
    for d in (host, red, table, fresh):
        wait_text(d, "#seat-move-text", "Chloé (White)'s seat is moving to a new phone")
    shots(red, "phone-seat-moving")
    shots(table, "table-seat-moving", table=True)
    reopen(white, gid)
    white.page.wait_for_selector("#seat-move-cancel:not([hidden])")
    assert not red.visible("#seat-move-cancel") and not host.visible("#seat-move-cancel")
    shots(white, "phone-seat-move-cancel")
    white.press("#seat-move-cancel")
    for d in (host, red, table, fresh, white):
        hidden(d, "#seat-move")
    assert "you" not in fresh.view(gid) and white.view(gid)["you"]["color"] == "white"
    assert not [k for _, _, k, _ in server.events(gid) if k == "move"]

    # Later the phone is gone for good: the same way, not cancelled, and the seat moves with its cards.
    white.page.close()
    fresh.page.wait_for_selector("#rescue-ask:not([hidden])", timeout=15000)
    fresh.press("#rescue-ask")
    wait_text(table, "#seat-move-ask", "Type this code")
    table.page.wait_for_selector("#seat-asks .code")
    code = table.text("#seat-asks .code").strip()
    fresh.page.fill("#code-value", code)
    fresh.press("#code-form button[type=submit]")
    wait_text(fresh, "#seat-move-text", "the seat moves here in a few seconds")
    for d in (host, red, table):
        wait_text(d, "#notice", "Chloé (White)'s seat moved to a new phone.", timeout=60000)
    wait_text(fresh, "#notice", "Your seat moved to this phone.")
    fresh.page.wait_for_selector("#show-cards:not([hidden])")
    fresh.press("#show-cards")
    panel = fresh.text("#cards-body")
    for s in card_strings("en", "expert", *cards["white"]):
        assert s in panel
    for c in ("blue", "red"):
        for s in card_strings("en", "expert", *cards[c]):
            assert s not in panel
    assert frame_leaks(fresh.frames, "white", cards) == []
    for d, own in ((host, "blue"), (red, "red"), (table, None)):
        assert frame_leaks(d.frames, own, cards) == []
    moves = [json.loads(b) for _, _, k, b in server.events(gid) if k == "move"]
    assert moves == [{"color": "white", "name": None, "confirmed": "table"}]


def test_the_display_code_is_asked_for_on_the_pi_s_screen_and_typed_on_a_phone_page(start_server, devices):
    server = start_server(env=FAST)
    host = devices(server, name="Ann")
    status, data = host.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"],
                                                   "removed_districts": ["north", "east"]})
    gid = data["id"]
    table = kiosk(devices, server)
    table.page.wait_for_selector("#display-ask:not([hidden])")
    assert not table.visible("#display-code")      # no code until someone asks for it here
    table.page.click("#display-ask")   # a mouse or a finger on the Pi's screen
    wait_text(table, "#display-code", "Make another device the table display with code ")
    shots(table, "table-display-code", table=True, at="#display-code")
    code = table.text("#display-code").rsplit(" ", 1)[1]
    tablet = devices(server, name="tablet")
    tablet.goto(f"/g/{gid}")
    tablet.page.wait_for_selector("#display-form:not([hidden])")
    tablet.page.locator("#display-form summary").tap()
    tablet.page.fill("#display-code", "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY")
    tablet.press("#display-claim button")
    wait_text(tablet, "#msg", "That code is wrong")
    tablet.page.fill("#display-code", code)
    shots(tablet, "phone-display-code", at="#display-form")
    tablet.press("#display-claim button")
    tablet.page.wait_for_url("**/table")
    v = tablet.view(gid)
    assert v["table_display"] is True and v["host"] is False
    # A seated player's page offers no such field.
    assert host.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    host.goto(f"/g/{gid}")
    host.page.wait_for_selector("#lobby:not([hidden])")
    assert not host.visible("#display-form")
