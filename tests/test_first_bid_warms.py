"""The table tells its `warmed` service once, after the first bid or pass it logs and tells (serve.py hands it
gc.freeze: what the first pages, sockets and game made is kept out of the collector's passes from then on).

Through the table's own path (real SQLite, the hub, the LEDs' stand-in): a lobby, seats and a start are not a
bid; the first action is, and only the first in this process is."""
from __future__ import annotations

import random

from companion.live.hub import Hub
from companion.pi.leds import NoLeds
from companion.store.db import Store
from companion.table import Table
from history_games import drive, play_one


def test_warmed_is_called_once_after_the_first_logged_bid(tmp_path):
    told = []
    table = Table(Store(str(tmp_path / "companion.sqlite3")), Hub(), leds=NoLeds({"blue": 5}),
                  warmed=lambda: told.append([(g.id, len(g.actions)) for g in table.games.values() if g.state]))
    table.load()
    setup, actions, _, names = play_one(random.Random(4))
    gid = drive(table, setup, [], names, tag="w1")       # created, seated, cards in, started: no bid yet
    assert told == []
    first = actions[0]
    table.act(gid, f"dev-w1-{first.player}", {"pass": True} if not hasattr(first, "value") else
              {"bid": first.neighborhood, "value": first.value}, None)
    assert told == [[(gid, 1)]]                          # after the bid was applied, once
    for a in actions[1:5]:
        table.act(gid, f"dev-w1-{a.player}", {"pass": True} if not hasattr(a, "value") else
                  {"bid": a.neighborhood, "value": a.value}, None)
    setup2, actions2, _, names2 = play_one(random.Random(5))
    drive(table, setup2, actions2[:3], names2, tag="w2")
    assert len(told) == 1                                # later bids, and a second game's, call it no more
