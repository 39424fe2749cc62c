"""The bid that ends a game scores the end once: the history's row, the views and the LEDs share one explain().

Through the table's own path (real SQLite, the hub, the LEDs' stand-in), with the scoring counted where the game
asks for it. The tally itself is checked against the record in test_history.py and test_server_scoring*.py.
"""
from __future__ import annotations

import random

from companion.game import scoring
from companion.live.hub import Hub
from companion.model import game as game_module
from companion.pi.leds import NoLeds
from companion.store.db import Store
from companion.table import Table
from history_games import drive, play_one


def test_the_bid_that_ends_a_game_scores_its_end_once(tmp_path, monkeypatch):
    calls = []

    def counted(state, board=None):
        calls.append(state)
        return scoring.explain(state, board)
    monkeypatch.setattr(game_module, "explain", counted)
    table = Table(Store(str(tmp_path / "companion.sqlite3")), Hub(), leds=NoLeds({"blue": 5}))
    table.load()
    setup, actions, final, names = play_one(random.Random(3))
    gid = drive(table, setup, actions[:-1], names, tag="once")
    assert calls == []                       # nothing scored the end while the game went on
    last = actions[-1]
    device = f"dev-once-{last.player}"
    table.act(gid, device, {"pass": True} if not hasattr(last, "value") else
              {"bid": last.neighborhood, "value": last.value}, None)
    assert len(calls) == 1 and calls[0].finished   # the history's row, the views, the LEDs: one explain
    assert table.store.conn.execute("SELECT status FROM plays WHERE game = ?", (gid,)).fetchone() == ("finished",)
