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
    want = (f"The last action ({lost['player'].capitalize()}'s {lost['value']} on {lost['bid']}) was lost when the "
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
