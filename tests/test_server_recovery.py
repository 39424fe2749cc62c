"""A log that cannot be replayed costs only its own game: the table still starts and keeps the rest."""
from __future__ import annotations

import json
import sqlite3
import time

from server_helpers import Phone, create_game


def test_one_unreplayable_game_does_not_stop_the_server(start_server, tmp_path):
    srv = start_server()
    host = Phone(srv)
    good = create_game(host, ("blue", "red"), seed=4)
    bad = create_game(host, ("blue", "red", "white"), seed=5)
    srv.stop()
    # Someone edits the file by hand: an event the rules refuse (a bid before any start).
    with sqlite3.connect(srv.db) as conn:
        conn.execute("INSERT INTO events (game, seq, kind, body, device, at) VALUES (?, ?, ?, ?, ?, ?)",
                     (bad, 2, "action", json.dumps({"player": "blue", "bid": "C01", "value": 3}), None, time.time()))
    srv.start()
    assert Phone(srv).view(good)["id"] == good
    r = Phone(srv).get(f"/api/games/{bad}")
    assert r.status == 404 and r.json["error"]
    assert f"Game {bad} could not be replayed" in srv.log.read_text()
