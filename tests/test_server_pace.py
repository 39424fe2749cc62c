"""The Pi waits for the real board (issue 40, item 2): at "pace": "board" no Pi acts after a Pi's action or a call's
end until a person confirms the board (POST board/done) or acts; the view's board_pending lists those steps."""
from __future__ import annotations

import random
import time

from companion.game.rules import apply, new_game
from companion.store import events as logged
from companion.model.game import action_of
from server_helpers import Phone, choose, create_game

PIS = ("red", "white", "gray")


def settled(srv, gid: str) -> dict:
    """Wait (no time asserted) until the Pi holds its act, a person is to act, or the game is over."""
    game = srv.table.games[gid]
    for _ in range(3000):
        with game.lock:
            st = game.state
            if st.finished or st.to_act_color == "blue" or game.session.pi_held is not None:
                return
        time.sleep(0.01)
    raise AssertionError("the Pi never settled")


def expected(srv, gid: str) -> list[tuple]:
    """The steps since the last confirmation, worked out from the log alone: each Pi action, each call's end."""
    events = list(srv.table.store.events(gid))
    state = new_game(srv.table.games[gid].state.setup)
    steps: list[tuple] = []
    for seq, kind, body, device in events:
        if kind == "board_done":
            steps = [s for s in steps if s[0] > body["through"]]
        elif kind == "action":
            before, action = state, action_of(logged.Action(body))
            state = apply(state, action)
            if device.startswith("pi:"):
                steps.append((seq, "pass" if body.get("pass") else "bid", body["player"]))
            else:
                steps = []   # a person who acts has looked at the board
            if sum(state.built_count) > sum(before.built_count):
                steps.append((seq, "call_end", state.last_call.player))
        assert kind != "undo"
    return steps


def shown(view: dict) -> list[tuple]:
    return [(s["seq"], s["step"], s["color"]) for s in view["board_pending"]]


def pi_actions(srv, gid: str) -> int:
    return sum(1 for _, kind, _, device in srv.table.store.events(gid) if kind == "action" and device.startswith("pi:"))


def test_a_solo_game_at_the_boards_pace_one_pi_acts_until_the_board_is_done(inprocess_server):
    srv = inprocess_server(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    ann, watcher = Phone(srv), Phone(srv)
    gid = create_game(ann, ["blue", *PIS], seed=21)   # no pace given: the board's, as whenever a Pi plays
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color in PIS:
        assert ann.post(f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    assert view["pace"] == "board"
    rng = random.Random(5)
    confirmed = held = 0
    for _ in range(400):
        settled(srv, gid)
        view = ann.view(gid)
        assert shown(view) == expected(srv, gid), view["seq"]
        if view["phase"] != "playing":
            break
        before = pi_actions(srv, gid)
        if view["to_act"] == "blue":
            r = ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.3), expect_seq=view["seq"]))
            assert r.status == 200, r
            ended = any(s["step"] == "call_end" for s in r.json["board_pending"])
            settled(srv, gid)
            # After the person's action exactly one Pi acts (none when it ended a call: that is a step too).
            now = ann.view(gid)
            assert pi_actions(srv, gid) - before == (0 if ended or r.json["to_act"] == "blue" else 1)
            continue
        # A Pi is to act and holds: something is on the board to do.
        assert view["board_pending"], view
        held += 1
        # Someone not seated may not say the board is done: refused, nothing logged.
        assert watcher.post(f"/api/games/{gid}/board/done", {"through": view["seq"]}).status >= 400
        assert pi_actions(srv, gid) == before
        r = ann.post(f"/api/games/{gid}/board/done", {"through": view["board_pending"][-1]["seq"]})
        assert r.status == 200, r
        confirmed += 1
        settled(srv, gid)
        assert pi_actions(srv, gid) - before == 1   # the held act, once
    else:
        raise AssertionError("the game did not end")
    assert view["phase"] == "finished" and held > 10 and confirmed == held
    ann.close()
    watcher.close()


def test_at_the_timers_pace_the_pi_seats_play_on_without_a_confirmation(inprocess_server):
    srv = inprocess_server(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    ann = Phone(srv)
    gid = create_game(ann, ["blue", *PIS], seed=21, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color in PIS:
        assert ann.post(f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    assert view["pace"] == "timer"
    rng = random.Random(5)
    for _ in range(400):
        settled(srv, gid)
        view = ann.view(gid)
        assert shown(view) == expected(srv, gid)   # still listed, never waited for
        if view["phase"] != "playing":
            break
        assert view["to_act"] == "blue"
        assert ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.3), expect_seq=view["seq"])).status == 200
    assert view["phase"] == "finished"
    assert not any(kind == "board_done" for _, kind, _, _ in srv.table.store.events(gid))
    r = ann.post(f"/api/games/{gid}/setup", {"mode": "family", "players": ["blue", "red"], "pace": "slow"})
    assert r.status in (400, 409)
    # Issue 40, item 3: once the rematch exists, the finished game is not undone (said in the phone's language).
    new = ann.post(f"/api/games/{gid}/rematch", {})
    assert new.status in (200, 201), new
    r = ann.post(f"/api/games/{gid}/undo", {})
    assert (r.status, r.json["code"]) == (409, "rematch_made"), r
    r = ann.post(f"/api/games/{gid}/undo", {}, headers={"Accept-Language": "de"})
    assert r.json["error"].startswith("Die Revanche steht schon")
    r = ann.post(f"/api/games/{gid}/undo", {}, headers={"Accept-Language": "fr"})
    assert r.json["error"] != "The rematch is set up already" and r.json["code"] == "rematch_made"
    assert ann.view(gid)["phase"] == "finished"
    ann.close()


def test_undo_says_what_it_takes_back_the_pis_moves_included(inprocess_server):
    """Issue 40, item 3: GET undo (host) lists the actions an undo takes back, as the log's lines, oldest first."""
    srv = inprocess_server(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False)
    ann, other = Phone(srv), Phone(srv)
    gid = create_game(ann, ["blue", *PIS], seed=21, pace="timer")
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color in PIS:
        assert ann.post(f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    assert ann.get(f"/api/games/{gid}/undo").json["count"] == 0
    rng = random.Random(3)
    r = ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.0), expect_seq=view["seq"]))
    assert r.status == 200, r
    settled(srv, gid)
    view = ann.view(gid)
    preview = ann.get(f"/api/games/{gid}/undo")
    assert preview.status == 200, preview
    took = preview.json
    assert took["count"] == len(took["actions"]) == view["actions"] >= 2   # Ann's bid and the Pi's three moves since
    assert took["actions"] == view["log"][-took["count"]:]
    assert took["actions"][0]["color"] == "blue" and {a["color"] for a in took["actions"][1:]} <= set(PIS)
    assert other.get(f"/api/games/{gid}/undo").status == 403
    back = ann.post(f"/api/games/{gid}/undo", {"expect_seq": view["seq"]}).json
    assert back["actions"] == view["actions"] - took["count"] == 0
    ann.close()
    other.close()


def test_the_wait_and_a_confirmation_survive_a_restart(inprocess_server, tmp_path):
    """A power cut between a Pi's move and "Done on the board" leaves the Pi waiting; one after it does not ask
    again for what was done (board_done is logged)."""
    db = str(tmp_path / "restart.sqlite3")
    config = dict(RATE_LIMIT=1000.0, WRITE_RATE_LIMIT=1000.0, BOT_DELAY=0, BOT_PROCESS=False, DB=db)
    first = inprocess_server(**config)
    ann = Phone(first)
    gid = create_game(ann, ["blue", *PIS], seed=21)
    assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color in PIS:
        assert ann.post(f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"}).status == 200
    view = ann.post(f"/api/games/{gid}/start").json
    rng = random.Random(8)
    while True:   # until a Pi holds its act (not a call Ann's action ended, where none acted)
        assert ann.post(f"/api/games/{gid}/actions", dict(choose(view, rng, 0.0), expect_seq=view["seq"])).status == 200
        settled(first, gid)
        view = ann.view(gid)
        if view["to_act"] != "blue":
            break
    waiting = view
    first.stop()
    second = inprocess_server(**config)
    again = Phone(second)
    again.adopt(ann)
    settled(second, gid)
    view = again.view(gid)
    assert view["actions"] == waiting["actions"] and view["board_pending"] == waiting["board_pending"] != []
    assert again.post(f"/api/games/{gid}/board/done", {"through": view["seq"]}).status == 200
    settled(second, gid)
    done = again.view(gid)
    assert done["actions"] == waiting["actions"] + 1 and min(s["seq"] for s in done["board_pending"]) > view["seq"]
    second.stop()
    third = inprocess_server(**config)
    last = Phone(third)
    last.adopt(again)
    settled(third, gid)
    assert last.view(gid)["board_pending"] == done["board_pending"] and last.view(gid)["actions"] == done["actions"]
