"""Issue 31 in real Chromium: a page that only reconnects its socket after a restart that lost an acknowledged
action says so (the notice comes in the live view), and takes it down once the action is played again."""
from __future__ import annotations

import random
from pathlib import Path

from pages_helpers import browser, devices, shots_at  # noqa: F401
from server_helpers import play
from test_pages_cards import hidden, wait_text
from test_server_storage import _bid_last, _damage_last_wal_frame, _game


def test_a_page_that_only_reconnects_is_told_of_a_lost_action(start_server, devices):  # noqa: F811
    server = start_server()
    gid, phones = _game(server)
    rng = random.Random(3)
    play(gid, phones, rng, max_actions=6)
    watcher = devices(server, name="watcher")
    watcher.goto(f"/g/{gid}")
    table = devices(server, table=True)
    table.goto(f"http://localhost:{server.port}/table")
    seq = phones["blue"].view(gid)["seq"]
    for d in (watcher, table):
        d.wait_seq(seq)
        assert not d.visible("#storage")
    lost = _bid_last(gid, phones, rng)
    for d in (watcher, table):
        d.wait_seq(seq + 1)
    piece = watcher.bids().get(lost["bid"])
    assert piece == lost["player"][0].upper() + str(lost["value"]), piece   # the bid on the map
    server.kill()   # a power cut: the pages stay open and reconnect by themselves
    _damage_last_wal_frame(Path(server.db))
    server.start()
    who = f"P-{lost['player']} ({lost['player'].capitalize()})"   # a person by name with their colour (issue 37)
    want = (f"The last action ({who}'s {lost['value']} on {lost['bid']}) was lost when the "
            f"storage was damaged: play it again.")
    for d in (watcher, table):
        wait_text(d, "#storage", want, timeout=30000)
    # The page shows the game as it is now, without the lost bid (its count went back by one).
    now = phones["blue"].view(gid)["seq"]
    assert now == seq
    watcher.page.wait_for_function("n => +document.getElementById('app').dataset.seq === n", arg=now)
    assert watcher.bids().get(lost["bid"]) != piece
    shots_at(watcher, "storage-lost-phone", [(390, 844), (320, 568)])
    shots_at(table, "storage-lost-table", [(1920, 1080), (1280, 720)])
    # Played again: the notice goes from the open pages too.
    player = phones[lost["player"]]
    view = player.view(gid)
    r = player.post(f"/api/games/{gid}/actions", {"bid": lost["bid"], "value": lost["value"], "expect_seq": view["seq"]})
    assert r.status == 200, r
    for d in (watcher, table):
        hidden(d, "#storage")


def test_a_clash_is_told_on_every_screen_naming_nobody_and_the_second_hands_the_deal_to_the_app(start_server, devices):  # noqa: F811
    server = start_server()
    colors = ["blue", "red", "white"]
    ph = {c: devices(server, name=c) for c in colors}
    status, data = ph["blue"].api("POST", "/api/games", {"mode": "family", "players": colors, "deal": "physical",
                                                         "removed_districts": ["west"]})
    gid = data["id"]
    for c, d in ph.items():
        assert d.api("POST", f"/api/games/{gid}/seats/{c}", {"name": c.capitalize()})[0] == 200
        d.goto(f"/g/{gid}")
    table = devices(server, table=True)
    table.goto(f"http://localhost:{server.port}/table")
    entries = {"blue": "bridges", "red": "bridges", "white": "lakes"}   # red types blue's card
    for c, area in entries.items():
        assert ph[c].api("POST", f"/api/games/{gid}/seats/{c}/cards", {"area": area})[0] == 200
    said = "One card was entered twice: every entry is cleared. Everyone, check your cards and enter them again."
    for d in (*ph.values(), table):
        wait_text(d, "#notice", said)
    for d in ph.values():
        d.page.wait_for_selector("#cards-form:not([hidden])")
        for other in ("Blue", "Red", "White"):
            assert other not in d.text("#notice")
    shots_at(ph["white"], "phone-cards-clash", [(390, 844), (320, 568)])
    shots_at(table, "table-cards-clash", [(1920, 1080), (1280, 720)])
    for c, area in entries.items():
        assert ph[c].api("POST", f"/api/games/{gid}/seats/{c}/cards", {"area": area})[0] == 200
    for d in (*ph.values(), table):
        wait_text(d, "#notice", "the app deals the secret cards now")
    for d in ph.values():
        hidden(d, "#cards-form")
    shots_at(ph["red"], "phone-cards-app-deals", [(390, 844), (320, 568)])
    assert ph["blue"].api("POST", f"/api/games/{gid}/start", {})[0] == 200
    for d in ph.values():
        d.wait_phase("playing")
