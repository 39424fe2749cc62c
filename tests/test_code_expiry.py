"""A code on a screen leaves it when it expires, not at the next change: the table tells every listening device
again at the code's expiry (a seat's move code here; asks and host claims take the same timer)."""
from __future__ import annotations

import json
import time

from companion import codes, create_app


def test_a_seats_move_code_leaves_its_phone_when_it_expires(tmp_path, monkeypatch):
    monkeypatch.setattr(codes, "LIFETIME", 0.5)
    app = create_app({"DB": str(tmp_path / "expiry.sqlite3"), "LISTEN": "127.0.0.1"})
    table = app.extensions["table"]
    options = {"mode": "family", "players": ["blue", "red"], "deal": "app", "layout": "random",
               "removed_districts": ["north", "west"]}
    game = table.create(options, "phone-blue")
    for color in ("blue", "red"):
        table.claim_seat(game.id, color, color.title(), f"phone-{color}")
    table.start(game.id, "phone-blue")
    assert table.hub.join(game.id, "phone-red", "127.0.0.1") is not None   # red's phone listens
    told = []
    publish = table.hub.publish

    def recorded(gid, render):
        texts = publish(gid, render)
        told.append(texts)
        return texts

    table.hub.publish = recorded
    shown = json.loads(table.seat_code(game.id, "red", "phone-red"))
    assert "red" in shown["move_codes"]
    deadline = time.monotonic() + 30   # a bound for a stuck test, not a timing: the wake is due after 0.55 s
    while time.monotonic() < deadline:
        if any("move_codes" not in json.loads(t["phone-red"]) for t in told if "phone-red" in t):
            break
        time.sleep(0.05)
    sent = [json.loads(t["phone-red"]) for t in told if "phone-red" in t]
    assert sent and "move_codes" not in sent[-1], "the expired code is still on red's phone"
