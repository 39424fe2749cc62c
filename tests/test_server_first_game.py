"""Issue 19 item 2, on a real server with real sockets: who is in their first game is decided once, at the start
(no finished game under that name, nor from that device: companion/store/first_game.py), survives a restart (it is in
the start event), and only that player's own phone is told, on its turns until its first bid (companion/views.py)."""
from __future__ import annotations

import random

from server_helpers import choose, create_game

HINT = "first_game_hint"


def sit(gid: str, phones: dict) -> None:
    for color, (p, name) in phones.items():
        r = p.post(f"/api/games/{gid}/seats/{color}", {"name": name})
        assert r.status == 200, r


def play_out(gid: str, phones: dict, rng: random.Random, seen: dict) -> None:
    """Random legal moves to the end; `seen[color]` collects (had the hint, had bid before) at each of its turns."""
    bid = set()
    view = next(iter(phones.values())).view(gid)
    while view["phase"] == "playing":
        color = view["to_act"]
        mine = phones[color].view(gid)
        seen.setdefault(color, []).append((HINT in mine, color in bid))
        for other, p in phones.items():
            if other != color:
                assert HINT not in p.view(gid), f"{other} was told something about {color}'s turn"
        move = choose(mine, rng)
        r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        if "bid" in move:
            bid.add(color)
        view = r.json


def test_a_first_game_hints_each_new_player_on_their_own_turns_until_their_first_bid(server, phone):
    ann, bert, watcher = phone(server), phone(server), phone(server)
    gid = create_game(ann, ["blue", "red"])
    sit(gid, {"blue": (ann, "Ann"), "red": (bert, "Bert")})
    sock = watcher.ws(gid)
    assert ann.post(f"/api/games/{gid}/start").status == 200
    seen: dict = {}
    play_out(gid, {"blue": ann, "red": bert}, random.Random(3), seen)
    for color, turns in seen.items():
        # Their turns before their first bid carry the hint, every later one does not.
        assert [had for had, _ in turns] == [not before for _, before in turns], (color, turns)
        assert turns[0] == (True, False)
    # A phone that only watches never hears of it, at any moment of the game.
    assert sock.messages and not any(HINT in m for m in sock.messages)


def test_a_name_or_a_device_from_a_finished_game_is_no_longer_new_and_a_restart_keeps_who_is(start_server, phone):
    server = start_server()
    ann, bert = phone(server), phone(server)
    gid = create_game(ann, ["blue", "red"])
    sit(gid, {"blue": (ann, "Ann"), "red": (bert, "Bert")})
    assert ann.post(f"/api/games/{gid}/start").status == 200
    play_out(gid, {"blue": ann, "red": bert}, random.Random(8), {})
    assert ann.view(gid)["phase"] == "finished"

    # Ann's phone under a new name (her device played), a new phone typing "bért" (the standings fold accents and
    # case: Bert played), and Dora, new on both counts.
    bert2, dora = phone(server), phone(server)
    gid2 = create_game(ann, ["blue", "red", "white"])
    sit(gid2, {"blue": (ann, "Annie"), "red": (bert2, "bért"), "white": (dora, "Dora")})
    assert ann.post(f"/api/games/{gid2}/start").status == 200
    # A restart before anyone acts: the replayed start event still says who is new (the history is not asked again).
    server.kill()
    server.start()
    players = {"blue": ann, "red": bert2, "white": dora}
    seen: dict = {}
    rng = random.Random(1)
    white_bid = False
    for _ in range(9):   # three rounds of turns: everyone acts at least once; White bids, the others pass
        view = ann.view(gid2)
        color = view["to_act"]
        mine = players[color].view(gid2)
        seen.setdefault(color, []).append((HINT in mine, white_bid))
        move = {"pass": True} if mine["legal"]["pass"] and color != "white" else choose(mine, rng, pass_rate=0)
        r = players[color].post(f"/api/games/{gid2}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        white_bid = white_bid or (color == "white" and "bid" in move)
    assert seen["white"][0] == (True, False)
    assert [had for had, _ in seen["white"]] == [not before for _, before in seen["white"]], seen["white"]
    assert not any(had for had, _ in seen["blue"] + seen["red"]), seen
