"""Whole games through the real server, one phone per player, scored again by `companion score`."""
from __future__ import annotations

import json
import random

import pytest

from companion.game.setup import deal
from server_helpers import create_game, play, score_record, seat_and_start, timeless

COLORS = ("blue", "red", "white", "gray")

GAMES = [  # (mode, players, deal, seed)
    ("family", 2, "app", 11),
    ("family", 3, "physical", 12),
    ("family", 4, "app", 13),
    ("expert", 2, "physical", 14),
    ("expert", 3, "app", 15),
    ("expert", 4, "physical", 16),
]


@pytest.mark.parametrize("mode,players,how,seed", GAMES, ids=[f"{m}-{n}p-{d}" for m, n, d, _ in GAMES])
def test_whole_game_scores_as_companion_score(server, phone, mode, players, how, seed):
    rng = random.Random(seed)
    colors = rng.sample(COLORS, players)
    phones = {c: phone(server) for c in colors}
    host = phones[colors[0]]
    viewer = phone(server)
    gid = create_game(host, colors, mode=mode, deal=how, seed=seed)
    cards = dict(zip(colors, deal(mode, players, rng))) if how == "physical" else None
    started = seat_and_start(gid, host, phones, cards)
    assert started["phase"] == "playing" and started["to_act"] == colors[0]
    socks = {c: p.ws(gid) for c, p in phones.items()}
    socks["viewer"] = viewer.ws(gid)

    sent = play(gid, phones, rng)

    final = viewer.view(gid)
    assert final["phase"] == "finished"
    r = viewer.get(f"/api/games/{gid}/record")
    assert r.status == 200, r
    record = r.json
    # The log is the record: every action the phones sent, in order, and nothing else.
    assert record["actions"] == sent
    assert record["mode"] == mode and [p["color"] for p in record["players"]] == colors
    if cards:
        assert {p["color"]: (p["area"], p["neighborhood"]) for p in record["players"]} == cards
    printed = score_record(record)
    assert printed["finished"] is True
    assert final["scores"] == printed
    assert max(p["buildings"] for p in final["players"]) == 13
    # Every phone and the viewer got the final view on its socket, scores included.
    for who, sock in socks.items():
        last = sock.wait_seq(final["seq"])
        assert last["seq"] == final["seq"] and last["scores"] == printed, who


def test_undo_appends_to_the_log_and_the_record_leaves_the_bid_out(server, phone):
    rng = random.Random(3)
    colors = ["red", "blue", "gray"]
    phones = {c: phone(server) for c in colors}
    gid = create_game(phones["red"], colors, seed=3)
    seat_and_start(gid, phones["red"], phones)
    sent = play(gid, phones, rng, max_actions=5)
    before = phones["red"].view(gid)
    events_before = server.events(gid)

    r = phones["red"].post(f"/api/games/{gid}/undo")
    assert r.status == 200, r
    undone = sent.pop()
    after = r.json
    assert after["seq"] == before["seq"] + 1 and after["actions"] == before["actions"] - 1
    events_after = server.events(gid)
    # Undo appends; the earlier events are untouched, byte for byte.
    assert events_after[:len(events_before)] == events_before
    assert events_after[-1][2] == "undo" and len(events_after) == len(events_before) + 1
    assert after["to_act"] == undone["player"]

    sent += play(gid, phones, rng)
    record = phones["blue"].get(f"/api/games/{gid}/record").json
    assert record["actions"] == sent
    assert phones["blue"].view(gid)["scores"] == score_record(record)


def test_restart_rebuilds_every_game_from_its_log(start_server, phone):
    s = start_server()
    rng = random.Random(5)
    games = []
    for n, mode in ((2, "expert"), (4, "family")):
        colors = rng.sample(COLORS, n)
        phones = {c: phone(s) for c in colors}
        gid = create_game(phones[colors[0]], colors, mode=mode, seed=n)
        seat_and_start(gid, phones[colors[0]], phones)
        play(gid, phones, rng, max_actions=30)
        games.append((gid, phones, {c: timeless(p.view(gid)) for c, p in phones.items()}))
    s.stop()
    s.start()
    for gid, phones, views in games:
        for c, p in phones.items():
            again = p.view(gid)
            assert timeless(again) == views[c]  # seats, secret cards, legal moves and seq all rebuilt
            assert again["you"]["color"] == c
        play(gid, phones, rng)
        assert p.view(gid)["phase"] == "finished"


def test_view_holds_the_contract_fields(server, phone):
    colors = ["white", "gray"]
    phones = {c: phone(server) for c in colors}
    gid = create_game(phones["white"], colors, mode="expert", seed=8)
    view = seat_and_start(gid, phones["white"], phones)
    for key in ("seq", "phase", "mode", "to_act", "players", "call", "built", "tokens", "subway_card",
                "archaeological_card", "legal", "you"):
        assert key in view, key
    assert set(view["players"][0]) >= {"color", "name", "values", "tokens", "buildings"}
    assert view["legal"]["pass"] is False  # "A start player cannot pass."
    bid_nb = sorted(view["legal"]["neighborhoods"])[0]
    r = phones["white"].post(f"/api/games/{gid}/actions", {"bid": bid_nb, "value": 7})
    assert r.status == 200, r
    view = phones["gray"].view(gid)
    assert view["call"] == [{"neighborhood": bid_nb, "color": "white", "value": 7}]
    assert view["to_act"] == "gray" and view["legal"]["pass"] is True
    assert all(v > 7 for vs in view["legal"]["neighborhoods"].values() for v in vs)
    assert phones["white"].view(gid)["legal"] is None  # only the seat to act gets moves
    assert view["you"]["area"] and view["you"]["neighborhood"]
    assert json.dumps(view)  # plain JSON all the way down
