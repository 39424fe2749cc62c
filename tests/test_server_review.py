"""The Pi's review and its hints on a real server (issue 41, items 3 and 4): nothing of the review reaches any
device before the end, hints are refused as they must be, counted in the view, the log, history and BG Stats."""
from __future__ import annotations

import random
import time

import pytest

from companion.game.rules import apply, legal_actions, new_game
from companion.game.record import parse_setup, parse_action
from companion.game.state import Bid, Pass
from conftest import FAST
from server_helpers import LiveServer, choose, seat_and_start

ENV = dict(FAST, COMPANION_BOT_DELAY="0")
REVIEW_WORDS = (b'"marked"', b'"better"', b'"lost"', b'"awards"')


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("review") / "companion.sqlite3", env=ENV)
    s.start()
    yield s
    s.kill()


def hints_game(server, phone, hints=True):
    """Blue (the host) and red, each on a phone, in a game created with hints allowed (or not)."""
    blue, red = phone(server), phone(server)
    body = {"mode": "family", "players": ["blue", "red"], "removed_districts": ["north", "east"], "seed": 5,
            "pace": "timer"}   # a Pi seat plays on by itself (the board's pace is tests/test_server_pace.py's)
    if hints is not None:
        body["hints"] = hints
    r = blue.post("/api/games", body)
    assert r.status == 201, r
    return r.json["id"], blue, red


def reviewed(phone, gid: str, get=None):
    """The review once it is worked out: 202 {"pending", "done", "of"} until then, never a request held waiting."""
    get = get or phone.get
    for _ in range(600):
        r = get(f"/api/games/{gid}/review")
        if r.status != 202:
            return r
        assert r.json["pending"] is True and 0 <= r.json["done"] < r.json["of"]
        time.sleep(0.2)
    raise AssertionError("the review never came")


def move_of(view: dict) -> dict:
    return {"pass": True} if view.get("pass") else {"bid": view["bid"], "value": view["value"]}


def test_hints_and_review_through_a_whole_game_seen_by_every_device(server, phone):
    gid, blue, red = hints_game(server, phone)
    watcher, table = phone(server), phone(server)
    table_get = lambda path: table.get(path, headers={"Host": f"localhost:{server.port}"})   # the Pi's own screen
    assert blue.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    assert red.post(f"/api/games/{gid}/seats/red", {"name": "Bob"}).status == 200
    early = blue.post(f"/api/games/{gid}/hint")
    assert (early.status, early.json["code"]) == (409, "not_playing")
    assert blue.post(f"/api/games/{gid}/start").status == 200
    phones = {"blue": blue, "red": red}
    for p in (blue, red, watcher, table):
        p.capture = True
    socks = [p.ws(gid) for p in (blue, red, watcher)]
    rng, asked = random.Random(2), {"blue": 0, "red": 0}
    view = blue.view(gid)
    assert view["hints_allowed"] is True and [p["hints"] for p in view["players"]] == [0, 0]
    while view["phase"] == "playing":
        color = view["to_act"]
        other = "red" if color == "blue" else "blue"
        mine = phones[color].view(gid)
        if asked[color] < 2:
            r = phones[color].post(f"/api/games/{gid}/hint")
            assert r.status == 200, r
            hint = r.json["action"]
            legal = mine["legal"]
            assert (hint == {"pass": True} and legal["pass"]) or hint["value"] in legal["neighborhoods"][hint["bid"]]
            assert r.json["because"].endswith(".") and len(r.json["because"]) > 10
            assert r.json["view"]["seq"] == mine["seq"] + 1   # counted: the phone's next expect_seq is current
            asked[color] += 1
            assert [p["hints"] for p in blue.view(gid)["players"]] == [asked["blue"], asked["red"]]
            turn = phones[other].post(f"/api/games/{gid}/hint")
            assert (turn.status, turn.json["code"]) == (409, "hint_not_your_turn")
            look = watcher.post(f"/api/games/{gid}/hint")
            assert (look.status, look.json["code"]) == (403, "hint_watcher")
            for p in (blue, red, watcher):
                early = p.get(f"/api/games/{gid}/review")
                assert (early.status, early.json["code"]) == (409, "not_finished")
            assert table_get(f"/api/games/{gid}/review").status == 409
            mine = phones[color].view(gid)
        r = phones[color].post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.3), expect_seq=mine["seq"]))
        assert r.status == 200, r
        view = r.json
        table_get(f"/api/games/{gid}")
    for s in socks:
        s.wait_seq(view["seq"])
    seen = [raw for p in (blue, red, watcher, table) for (_, _, _, raw) in p.seen]
    assert len(seen) > 100 and not [w for w in REVIEW_WORDS for raw in seen if w in raw]
    kinds = [kind for _, _, kind, _ in server.events(gid)]
    assert kinds.count("hint") == 4 and not {"review", "judged"} & set(kinds)

    review = reviewed(table, gid, table_get)
    assert review.status == 200, review
    assert set(review.json) == {"seats", "awards"} and set(review.json["seats"]) == {"blue", "red"}
    record = blue.get(f"/api/games/{gid}/record").json
    assert "hints" not in str(record)   # the record's contract holds no hints (RECORD.md): the log keeps them
    state = new_game(parse_setup(record))
    marks = {(m["seq"], c): m for c, seat in review.json["seats"].items() for m in seat["marked"]}
    for c, seat in review.json["seats"].items():
        assert seat["decisions"] > 5 and len(seat["marked"]) <= 3 and seat["lost"] >= sum(m["cost"] for m in seat["marked"]) - 0.1
    for i, raw in enumerate(record["actions"], 1):
        action = parse_action(raw)
        m = marks.get((i, action.player))
        if m:
            better = Pass(action.player) if m["better"].get("pass") else Bid(action.player, m["better"]["bid"],
                                                                             m["better"]["value"])
            assert better in legal_actions(state) and m["action"] == move_of(raw) != m["better"] and m["cost"] > 0
        state = apply(state, action)
    assert blue.get(f"/api/games/{gid}/review").json == review.json   # the same review for everyone, every time

    # counted on the tally and in history, and in BG Stats' comments
    assert [p["hints"] for p in blue.view(gid)["players"]] == [2, 2]
    row = next(g for g in blue.get("/api/history").json["games"] if g["id"] == gid)
    assert [p.get("hints") for p in row["players"]] == [2, 2]
    assert "Ann: 2 hints; Bob: 2 hints" in blue.get(f"/api/games/{gid}/bgstats").json["data"]["comments"]


def test_hints_refused_when_the_host_did_not_allow_them_in_each_language(server, phone):
    gid, blue, red = hints_game(server, phone, hints=None)
    seat_and_start(gid, blue, {"blue": blue, "red": red})
    view = blue.view(gid)
    assert view["hints_allowed"] is False and "hints" not in view["players"][0]
    asker = {"blue": blue, "red": red}[view["to_act"]]
    said = {}
    for lang in ("en", "de", "fr"):
        asker.lang = lang
        r = asker.post(f"/api/games/{gid}/hint")
        assert (r.status, r.json["code"]) == (409, "hints_off")
        said[lang] = r.json["error"]
    assert said["en"] == "The host has not allowed hints in this game."
    assert "Tipps" in said["de"] and "conseils" in said["fr"]


def test_the_hint_count_survives_a_restart_and_the_pi_seat_is_not_reviewed(server, phone, tmp_path):
    s = LiveServer(tmp_path / "companion.sqlite3", env=ENV)
    s.start()
    try:
        gid, blue, red = hints_game(s, phone)
        assert blue.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
        assert blue.post(f"/api/games/{gid}/seats/red/pi", {"level": "easy"}).status == 200
        assert blue.post(f"/api/games/{gid}/start").status == 200
        sock = blue.ws(gid)
        view = blue.view(gid)
        while view["to_act"] != "blue":
            view = sock.wait_seq(view["seq"] + 1, timeout=30)
        assert blue.post(f"/api/games/{gid}/hint").status == 200
        s.stop()
        s.start()
        view = blue.view(gid)
        assert [p["hints"] for p in view["players"]] == [1, 0]
        rng = random.Random(4)
        sock = blue.ws(gid)
        while view["phase"] == "playing":
            if view["to_act"] == "blue":
                mine = blue.view(gid)
                view = blue.post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.3), expect_seq=mine["seq"])).json
            else:
                view = sock.wait_seq(view["seq"] + 1, timeout=30)
                view = blue.view(gid)
        review = reviewed(blue, gid)
        assert review.status == 200 and set(review.json["seats"]) == {"blue"}   # the Pi's own seat is not reviewed
        assert review.json["seats"]["blue"]["decisions"] > 5
    finally:
        s.kill()
