"""History costs nothing while playing: ended games are summary rows, read from SQLite when someone opens them."""
from __future__ import annotations

import json
import random
import sqlite3

from companion.store import history
from companion.store.db import Store
from companion.game.record import replay, to_record
from companion.game.scoring import score
from companion.live.hub import Hub
from companion.table import Table
from history_games import drive, play_one, write_games
from server_helpers import Phone, create_game, play, score_record, seat_and_start


def table_on(path) -> Table:
    t = Table(Store(str(path)), Hub())
    t.load()
    return t


def plays_rows(path) -> dict:
    with sqlite3.connect(path) as conn:
        return {g: json.loads(s) for g, s in conn.execute("SELECT game, summary FROM plays")}


def test_a_game_that_ends_writes_its_summary_and_an_undo_takes_it_back(tmp_path):
    db = tmp_path / "t.sqlite3"
    t = table_on(db)
    setup, actions, final, names = play_one(random.Random(3))
    gid = drive(t, setup, actions, names)
    rows = plays_rows(db)
    assert list(rows) == [gid]
    assert {p["color"]: p["score"] for p in rows[gid]["players"]} == \
        {c: v["total"] for c, v in score(final)["players"].items()}
    host = f"dev--{setup.colors[0]}"
    t.undo(gid, host)   # the game is open again: its summary goes with the undo, in the same transaction
    assert plays_rows(db) == {}
    last = actions[-1]
    t.act(gid, f"dev--{last.player}", {"pass": True} if not hasattr(last, "value") else
          {"bid": last.neighborhood, "value": last.value}, None)
    assert list(plays_rows(db)) == [gid]
    with sqlite3.connect(db) as conn:
        kinds = [k for (k,) in conn.execute("SELECT kind FROM events WHERE game = ? ORDER BY seq", (gid,))]
    assert kinds[-2:] == ["undo", "action"]   # the log only grew


def test_ended_games_stay_on_disk_at_start_and_open_on_demand(tmp_path):
    db = tmp_path / "t.sqlite3"
    made = write_games(str(db), 60, seed=5)
    t = table_on(db)
    # Only the newest game (the table display's) is in memory; nothing else was replayed.
    assert list(t.games) == [made[-1]["id"]] and not t.opened and t.current == made[-1]["id"]
    for m in random.Random(1).sample(made, 12):
        game = t.get(m["id"])
        assert game.phase == "finished"
        assert t.record(m["id"]) == to_record(m["setup"], m["actions"]) | {
            "players": [{"color": s.color, "name": m["names"][s.color], "area": s.area, "neighborhood": s.neighborhood}
                        for s in m["setup"].seats]}
    assert len(t.opened) == Table.OPENED   # a bounded handful, however many were opened
    assert list(t.games) == [made[-1]["id"]]


def test_a_database_from_before_summaries_is_backfilled_once(tmp_path):
    db = tmp_path / "old.sqlite3"
    made = write_games(str(db), 25, seed=9, summaries=False)
    assert plays_rows(db) == {}
    t = table_on(db)
    rows = plays_rows(db)
    assert set(rows) == {m["id"] for m in made}
    for m in made:
        record = to_record(m["setup"], m["actions"])
        for p in record["players"]:
            p["name"] = m["names"][p["color"]]
        totals = {c: v["total"] for c, v in score(replay(record))["players"].items()}
        assert {p["color"]: p["score"] for p in rows[m["id"]]["players"]} == totals
    assert len(t.games) == 1 and len(t.opened) <= Table.OPENED
    # The next start reads the rows and replays nothing.
    again = Table(Store(str(db)), Hub())
    read = []   # whose events the start reads, however it reads them
    of, events = again.store.events_of, again.store.events
    again.store.events_of = lambda games: (read.extend(sorted(games)), of(games))[1]
    again.store.events = lambda gid: (read.append(gid), events(gid))[1]
    again.load()
    assert read == [made[-1]["id"]]   # only the current game, for the table display


def test_a_game_in_progress_keeps_its_state_and_actions_and_undo_replays(tmp_path):
    t = table_on(tmp_path / "t.sqlite3")
    setup, actions, final, names = play_one(random.Random(8))
    gid = drive(t, setup, actions[:40], names)
    game = t.get(gid)
    assert not hasattr(game, "states") and len(game.actions) == 40
    t.undo(gid, f"dev--{setup.colors[0]}")
    from companion.game.rules import apply, new_game
    state = new_game(game.state.setup)
    for a in actions[:39]:
        state = apply(state, a)
    assert game.state == state


def test_a_thousand_finished_games_the_server_answers_opens_old_games_and_plays_a_new_one(start_server, tmp_path):
    db = tmp_path / "big.sqlite3"
    made = write_games(str(db), 1000, seed=1000)
    srv = start_server(db=db)
    p = Phone(srv)
    assert p.get("/api/games/current").json["id"] == made[-1]["id"]
    for m in random.Random(2).sample(made, 5):
        view = p.view(m["id"])
        r = p.get(f"/api/games/{m['id']}/record")
        assert r.status == 200, r
        assert view["phase"] == "finished" and view["scores"] == score_record(r.json)
        assert r.json["actions"] == [a.to_json() for a in m["actions"]]
    rng = random.Random(4)
    colors = ("blue", "red", "white")
    phones = {c: Phone(srv) for c in colors}
    gid = create_game(phones["blue"], colors, seed=4)
    seat_and_start(gid, phones["blue"], phones)
    play(gid, phones, rng)
    final = phones["red"].view(gid)
    assert final["phase"] == "finished"
    assert final["scores"] == score_record(phones["red"].get(f"/api/games/{gid}/record").json)
    assert history.play(Store(str(db)), gid)["players"][0]["name"] == "P-blue"
