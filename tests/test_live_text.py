"""What a socket is sent is exactly the view: the JSON text views.view_json and views.view_texts build
(the public part encoded once, devices that may see the same sharing one text, by orjson) and the frame the live
loop writes once for many sockets are the bytes json.dumps (ensure_ascii=False) and wsproto would have made."""
from __future__ import annotations

import json
import random

import pytest
from wsproto.connection import Connection, ConnectionType
from wsproto.events import TextMessage

from companion import create_app, views
from companion.live.wsloop import text_frame

COLORS = ["blue", "red", "white", "gray"]


def as_json(view: dict) -> str:
    """The standard library's text of a view, as views.py promises to write it with orjson."""
    return json.dumps(view, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_view_framed_once_is_the_frame_wsproto_makes(size):
    text = ("é" + "x" * size)[:size] if size else ""
    ws = Connection(ConnectionType.SERVER)
    assert text_frame(text) == ws.send(TextMessage(text))


def test_every_view_text_is_json_dumps_of_the_view_through_a_whole_game(tmp_path):
    app = create_app({"DB": str(tmp_path / "text.sqlite3"), "LISTEN": "127.0.0.1"})
    table = app.extensions["table"]
    # The host's phone never opens a socket here, so the host-away countdown runs: held at one value, or a
    # second's boundary between two encodings of the same moment would differ by 1 (seen in CI: 119 vs 120).
    table.absences.host_wait = lambda game: 90.4   # the part that counts who is away (table/presence.py)
    table.absences.seat_waits = lambda game: {"red": 7}   # the seats' countdowns likewise
    options = {"mode": "expert", "players": COLORS, "deal": "app", "layout": "random", "removed_districts": [],
               "seed": 7}
    game = table.create(options, "phone-blue")
    for color in COLORS:
        table.claim_seat(game.id, color, f"Ann {color} \"quoted\" \u00e9", f"phone-{color}")
    table.start(game.id, "phone-blue")
    assert views.view(game, "watcher")["host_wait"] == 91, "the countdown is in every text compared below"
    devices = [f"phone-{c}" for c in COLORS] + ["watcher", "another watcher", None]
    rng = random.Random(3)
    checked_legal = 0
    while game.phase == "playing":
        told = views.view_texts(game, devices)
        for device in devices:
            whole = views.view(game, device)
            assert views.view_json(game, device) == as_json(whole)
            assert told[device] == as_json(whole)
            checked_legal += bool(whole["legal"])
        mover = f"phone-{game.state.to_act_color}"
        legal = views.view(game, mover)["legal"]
        if legal["pass"] and (not legal["neighborhoods"] or rng.random() < 0.3):
            move = {"pass": True}
        else:
            nb = rng.choice(sorted(legal["neighborhoods"]))
            move = {"bid": nb, "value": rng.choice(legal["neighborhoods"][nb])}
        table.act(game.id, mover, move, game.seq)
    told = views.view_texts(game, devices)
    for device in devices:
        assert views.view_json(game, device) == as_json(views.view(game, device))
        assert told[device] == views.view_json(game, device)
    assert checked_legal > 20
