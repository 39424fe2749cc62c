"""The table screen's scenes, played through the API: a late game mid-call and a call just over, under 24-character
names (the longest a seat takes), for the screen tests and the before/after screenshots."""
from __future__ import annotations

import random

from server_helpers import Phone, create_game

# The longest names a seat takes (companion/names.py: 24 characters), with the letters German and French use.
LONG = {"blue": "Maximiliane Grünewald-Ho", "red": "Jean-François Lefèvre-Ab",
        "white": "Anne-Charlotte Beauregar", "gray": "Dmitri Alexandrovich Kuz"}


def seated(server, colors=("blue", "red", "white", "gray"), seed=7, mode="family", names=None, host=None):
    """A started game: (game id, {colour: phone}); the first colour's phone (or `host`, the host of the game on the
    table: its new game takes the table) is the host."""
    phones = {c: Phone(server) for c in colors}
    if host is not None:
        phones[colors[0]] = host
    gid = create_game(phones[colors[0]], colors, mode=mode, seed=seed)
    for c, p in phones.items():
        r = p.post(f"/api/games/{gid}/seats/{c}", {"name": (names or LONG)[c]})
        assert r.status == 200, r
    r = phones[colors[0]].post(f"/api/games/{gid}/start")
    assert r.status == 200, r
    for p in phones.values():
        p.ws(gid)          # every phone online, as at a real table
    return gid, phones


def act(phones, gid, move):
    view = next(iter(phones.values())).view(gid)
    mine = phones[view["to_act"]].view(gid)
    r = phones[view["to_act"]].post(f"/api/games/{gid}/actions", dict(move(mine), expect_seq=mine["seq"]))
    assert r.status == 200, r
    return r.json


def _bid(rng, low=False):
    def move(mine):
        legal = mine["legal"]
        nb = rng.choice(sorted(legal["neighborhoods"]))
        values = legal["neighborhoods"][nb]
        return {"bid": nb, "value": values[0] if low else rng.choice(values[:3])}
    return move


def _pass(mine):
    return {"pass": True}


def late_game(phones, gid, calls=9, seed=3):
    """Plays `calls` whole calls (low bids, so hands last), then opens a call with three bids: a late game mid-call."""
    rng = random.Random(seed)
    view = None
    for _ in range(calls):
        view = act(phones, gid, _bid(rng, low=True))
        while view["phase"] == "playing" and view["call"]:
            view = act(phones, gid, _pass if rng.random() < 0.6 or not view.get("to_act") else _bid(rng, low=True))
    for _ in range(3):
        view = act(phones, gid, _bid(rng, low=True))
    return view


def end_call(phones, gid):
    """Everyone else passes: the call is over and its card is up."""
    view = next(iter(phones.values())).view(gid)
    while view["call"]:
        view = act(phones, gid, _pass)
    return view


def finished(phones, gid, seed=10):
    """Random legal moves (bids more often than passes) until someone builds their last building: the game is over."""
    rng = random.Random(seed)
    view = next(iter(phones.values())).view(gid)
    while view["phase"] != "finished":
        view = act(phones, gid, lambda mine: _pass(mine) if mine["legal"]["pass"] and (
            not mine["legal"]["neighborhoods"] or rng.random() < 0.4) else _bid(rng)(mine))
    return view
