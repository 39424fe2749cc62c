"""After an undo every screen says what to put back on the real board (issue 40, item 3): the undo adds one step to
board_pending, its moves taking the board as it stood to the board as the game now stands (a building turned back
number up, pieces taken off, a token and the bids put back, a card handed back), whether or not a Pi plays, until a
person says "Done on the board" or acts; a power cut keeps it (the log's replay rebuilds it)."""
from __future__ import annotations

import random
import time

from conftest import FAST
from server_helpers import LiveServer, Phone, choose, create_game

PIS = ("red", "white", "gray")


def board_of(view: dict) -> dict:
    """The real board a view describes: each piece (owner, value, face), the tokens still on it, the cards' holders."""
    pieces = {nb: (b["color"], b["value"], "down") for nb, b in view["built"].items()}
    pieces.update({b["neighborhood"]: (b["color"], b["value"], "up") for b in view["call"]})
    return {"pieces": pieces, "tokens": dict(view["tokens"]),
            "cards": {k: view[k + "_card"] for k in ("subway", "archaeological")}}


def moved(board: dict, moves: list, tokens_at_start: dict) -> dict:
    """`board` after a hand follows `moves`, each checked against what lies there (a wrong move fails here)."""
    pieces, tokens, cards = dict(board["pieces"]), dict(board["tokens"]), dict(board["cards"])
    for m in moves:
        if m["do"] == "turn_up":
            assert pieces.pop(m["nb"]) == (m["color"], m["value"], "down"), m
            pieces[m["nb"]] = (m["color"], m["value"], "up")
        elif m["do"] == "off":
            assert pieces.pop(m["nb"])[:2] == (m["color"], m["value"]), m
        elif m["do"] == "put_back":
            assert m["nb"] not in pieces, m
            pieces[m["nb"]] = (m["color"], m["value"], "up")
        elif m["do"] == "token":
            assert m["nb"] not in tokens and tokens_at_start[m["nb"]] == m["token"], m
            tokens[m["nb"]] = m["token"]
        else:
            assert m["do"] == "card" and cards[m["card"]] != m["color"], m
            cards[m["card"]] = m["color"]
    return {"pieces": pieces, "tokens": tokens, "cards": cards}


def undo_steps(view: dict) -> list:
    return [s for s in view["board_pending"] if s["step"] == "undo"]


def test_people_alone_an_undone_calls_end_is_put_back_on_the_board_and_a_power_cut_keeps_it(tmp_path):
    """Rulebook: "the player who made the highest bid [...] turns his building over" and "the other players take
    back their buildings": an undo of that call's end turns the building back number up and puts the bids back."""
    server = LiveServer(tmp_path / "undo.sqlite3", env=dict(FAST))
    server.start()
    try:
        ann, bob, cy = Phone(server), Phone(server), Phone(server)
        gid = create_game(ann, ["blue", "red", "white"], seed=5)
        assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
        assert bob.post(f"/api/games/{gid}/seats/red", {"name": "Bob"}).status == 200
        assert cy.post(f"/api/games/{gid}/seats/white", {"name": "Cy"}).status == 200
        view = ann.post(f"/api/games/{gid}/start").json
        start_tokens = dict(view["tokens"])
        phones, rng = {"blue": ann, "red": bob, "white": cy}, random.Random(2)
        while True:   # play until a pass ends a call with at least two bids in it (bids go back to a hand)
            mine = phones[view["to_act"]].view(gid)
            before = mine
            move = choose(mine, rng, 0.4)
            r = phones[view["to_act"]].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
            assert r.status == 200, r
            view = r.json
            assert view["board_pending"] == []   # people alone: each moves their own pieces
            if len(view["built"]) > len(before["built"]) and len(before["call"]) >= 2 and move.get("pass"):
                break
        r = ann.post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]})
        assert r.status == 200, r
        after = r.json
        steps = undo_steps(after)
        assert len(steps) == 1 and steps[0]["seq"] == after["seq"], after["board_pending"]
        moves = steps[0]["moves"]
        assert moves[0]["do"] == "turn_up" and any(m["do"] == "put_back" for m in moves), moves
        assert moved(board_of(view), moves, start_tokens) == board_of(after)
        assert steps[0]["taken"][0]["color"] == before["to_act"]
        # Bob's phone shows the same step: every screen.
        assert bob.view(gid)["board_pending"] == after["board_pending"]
        # More undos: a pass taken back moves nothing; a bid comes off the board, a step after the first one (both
        # wait for the board).
        again = after
        while len(undo_steps(again)) == 1:
            last = again
            r = ann.post(f"/api/games/{gid}/undo", {"expect_seq": again["seq"]})
            assert r.status == 200, r
            again = r.json
        assert [s["seq"] for s in undo_steps(again)] == [after["seq"], again["seq"]]
        assert moved(board_of(last), undo_steps(again)[1]["moves"], start_tokens) == board_of(again)
        assert [m["do"] for m in undo_steps(again)[1]["moves"]] == ["off"]
        # A power cut: the log's replay rebuilds the same steps.
        server.kill()
        server.start()
        assert ann.view(gid)["board_pending"] == again["board_pending"]
        r = bob.post(f"/api/games/{gid}/board/done", {"through": again["seq"]})
        assert r.status == 200, r
        assert r.json["board_pending"] == []
        server.kill()
        server.start()
        assert ann.view(gid)["board_pending"] == []
        for p in phones.values():
            p.close()
    finally:
        server.kill()


def settled(srv, gid: str) -> None:
    game = srv.table.games[gid]
    for _ in range(3000):
        with game.lock:
            if game.state.finished or game.state.to_act_color == "blue":
                return
        time.sleep(0.01)
    raise AssertionError("the Pi never settled")


def test_an_undo_with_the_pi_puts_its_moves_back_and_a_persons_action_confirms_it(inprocess_server):
    """The host's undo takes back the Pi's moves since the person's action: its pieces come off the board, and the
    calls it ended are put back, in the step every screen shows until a person acts or says the board is done."""
    srv = inprocess_server(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    ann = Phone(srv)
    gid = create_game(ann, ["blue", *PIS], seed=21, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color in PIS:
        assert ann.post(f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    start_tokens, rng, seen_ends = dict(view["tokens"]), random.Random(3), 0
    for i in range(40):   # until an undo took back a call's end the Pi made, three undos at least
        r = ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.3), expect_seq=view["seq"]))
        assert r.status == 200, r
        settled(srv, gid)
        view = ann.view(gid)
        if view["phase"] != "playing":
            break
        took = ann.get(f"/api/games/{gid}/undo").json["actions"]
        r = ann.post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]})
        assert r.status == 200, r
        back = r.json
        steps = undo_steps(back)
        assert len(steps) == 1 and [t["color"] for t in steps[0]["taken"]] == [a["color"] for a in took]
        assert moved(board_of(view), steps[0]["moves"], start_tokens) == board_of(back)
        for a in took:   # each Pi bid still standing comes off the board, named by its colour
            piece = board_of(view)["pieces"].get(a.get("neighborhood"))
            if a["kind"] == "bid" and a["color"] != "blue" and piece == (a["color"], a["value"], "up"):
                assert {"do": "off", "color": a["color"], "nb": a["neighborhood"], "value": a["value"]} in steps[0]["moves"]
        seen_ends += any(a.get("ended") for a in took)
        # The steps of the actions taken back go with them: only the undo's step is left.
        assert [s["step"] for s in back["board_pending"]] == ["undo"]
        # Ann acts again: she has looked at the board, the step is done.
        r = ann.post(f"/api/games/{gid}/actions", dict(choose(back, rng, 0.3), expect_seq=back["seq"]))
        assert r.status == 200 and undo_steps(r.json) == [], r
        settled(srv, gid)
        view = ann.view(gid)
        if view["phase"] != "playing" or (seen_ends and i >= 2):
            break
    assert seen_ends >= 1   # a call's end the Pi made was undone at least once
    ann.close()
