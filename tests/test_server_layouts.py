"""Saved layouts: checked as strictly as a game's, owned by the device that saved them, listed by name only."""
from __future__ import annotations

import random

from companion.game.board import load_board
from companion.game.setup import random_layout

LEGAL4 = random_layout(4, frozenset(), random.Random(3))
LEGAL2 = random_layout(2, frozenset({"north", "east"}), random.Random(4))


def test_a_saved_layout_is_checked_like_a_games(server, phone):
    host = phone(server)
    r = host.post("/api/layouts", {"name": "Four", "tokens": LEGAL4})
    assert r.status == 201 and r.json == {"name": "Four", "players": 4, "removed_districts": []}
    r = host.post("/api/layouts", {"name": "Two", "tokens": LEGAL2})
    assert r.status == 201 and r.json["players"] == 2 and r.json["removed_districts"] == ["east", "north"]
    bad = dict(LEGAL4, **{"<img src=x onerror=alert(1)>": "trendy"})
    r = host.post("/api/layouts", {"name": "Bad", "tokens": bad})
    assert r.status == 422 and r.json["code"] == "token_unknown_neighborhood"
    nb = sorted(LEGAL4)[0]
    r = host.post("/api/layouts", {"name": "Bad", "tokens": dict(LEGAL4, **{nb: '"><script>x</script>'})})
    assert r.status == 422 and r.json["code"] == "token_bad_kind"
    r = host.post("/api/layouts", {"name": "Bad", "tokens": {k: v for k, v in LEGAL4.items() if k != nb}})
    assert r.status == 422
    # Two empty districts that are not adjacent: no 2-player table removes those.
    board = load_board()
    pair = [d for d in ("north", "east", "south", "west")]
    far = next((a, b) for a in pair for b in pair if a < b and frozenset((a, b)) not in board.district_pairs)
    r = host.post("/api/layouts", {"name": "Far", "tokens": {k: v for k, v in LEGAL4.items()
                                                            if board.neighborhoods[k].district not in far}})
    assert r.status == 422
    r = host.post("/api/layouts", {"name": "\u202eevil", "tokens": LEGAL4})
    assert r.status == 400 and r.json["code"] == "bad_name"
    listed = host.get("/api/layouts").json
    assert {"name": "Four", "players": 4} in listed and all(set(x) == {"name", "players"} for x in listed)
    one = host.get("/api/layouts?name=Four").json
    assert one["tokens"] == LEGAL4 and one["players"] == 4
    assert host.get("/api/layouts?name=Nope").status == 404


def test_only_the_saving_device_overwrites_and_a_device_has_a_ceiling(server, phone):
    owner, other = phone(server), phone(server, lang="de")
    assert owner.post("/api/layouts", {"name": "Welcome", "tokens": LEGAL4}).status == 201
    r = other.post("/api/layouts", {"name": "Welcome", "tokens": LEGAL2})
    assert r.status == 409 and r.json["code"] == "layout_taken" and "Gerät" in r.json["error"]
    assert owner.get("/api/layouts?name=Welcome").json["tokens"] == LEGAL4
    assert owner.post("/api/layouts", {"name": "Welcome", "tokens": LEGAL2}).status == 201
    assert owner.get("/api/layouts?name=Welcome").json["players"] == 2
    for i in range(20):
        r = other.post("/api/layouts", {"name": f"mine {i}", "tokens": LEGAL4})
        assert r.status == 201, r
    r = other.post("/api/layouts", {"name": "one more", "tokens": LEGAL4})
    assert r.status == 429 and r.json["code"] == "layouts_full" and "20" in r.json["error"]
    assert other.post("/api/layouts", {"name": "mine 3", "tokens": LEGAL2}).status == 201  # overwriting is fine
