"""Names that cannot pass for the Pi (issue 42, item 3): a person may not take a name the Pi's seats go by, in any
language the pages speak, and history, standings and BG Stats tell the Pi's seats apart by what they were."""
from __future__ import annotations

import random
import sqlite3

import pytest

from companion.store import history
from companion.store.db import Store
from conftest import FAST
from history_games import game_log, play_one, write_game
from server_helpers import LiveServer, Phone, create_game

REFUSED = {"en": "That is what the Pi's seats are called", "de": "So heißen die Plätze des Pi",
           "fr": "C’est ainsi que s’appellent les places du Pi"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("pinames") / "companion.sqlite3", env=dict(FAST, COMPANION_BOT_DELAY="0"))
    s.start()
    yield s
    s.kill()


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("name", ["the Pi (strong)", "THE  pi (Easy)", "der Pi (stark)", "Le Pi (Rouge)",
                                  "gray: the Pi, normal"])
def test_a_person_cannot_take_a_name_the_pis_seats_go_by_in_any_language(server, lang, name):
    host = Phone(server, lang=lang)
    gid = create_game(host, ("blue", "red"))
    r = host.post(f"/api/games/{gid}/seats/blue", {"name": name})
    assert r.status == 409 and r.json["code"] == "name_pi", r.json
    assert r.json["error"].startswith(REFUSED[lang]) and r.json["error"].endswith(".")
    assert host.view(gid)["players"][0].get("name") in (None, "")   # nothing changed
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Pia"}).status == 200   # a name like it is fine


def test_history_standings_and_bg_stats_tell_a_person_named_like_the_pi_from_the_pi(tmp_path):
    """A person who took "the Pi (strong)" before the refusal existed, and a real strong Pi seat, each in a game:
    two rows in the standings, the Pi's marked by what it was; BG Stats gets two players with their own ids."""
    db = tmp_path / "named.sqlite3"
    store = Store(str(db))
    rng = random.Random(4)
    made = {}
    for i, (person, as_pi) in enumerate([(True, False), (False, True)]):
        setup, actions, final, _ = play_one(rng)
        who = dict(zip(setup.colors, ("Ann", "the Pi (strong)", "Carl", "Dana")))
        if person:   # a seat event with that name: a person sat down with it (the log of an older table)
            events = game_log(setup, actions, dict(who, **{setup.colors[1]: "X"}), rng, undos=0)
            events = [(k, dict(b, name="the Pi (strong)") if k == "seat" and b.get("name") == "X" else b, d)
                      for k, b, d in events]
        else:
            events = game_log(setup, actions, who, rng, undos=0)
        summary = history.summarize(f"g{i}", final, "finished", who)
        if as_pi:
            summary["players"][1]["pi"] = "strong"
        write_game(store, f"g{i}", events, 1.7e9 + i * 3600, summary)
        made[f"g{i}"] = setup.colors[1]
    store.close()
    s = LiveServer(db, env=FAST)
    s.start()
    try:
        p = Phone(s)
        games = {g["id"]: g for g in p.get("/api/history").json["games"]}
        seat = {gid: next(x for x in games[gid]["players"] if x["color"] == c) for gid, c in made.items()}
        assert "pi" not in seat["g0"] and seat["g0"]["name"] == "the Pi (strong)"   # the person, though so named
        assert seat["g1"]["pi"] == "strong"
        rows = [r for r in p.get("/api/standings").json["all"] if r["name"] == "the Pi (strong)"]
        assert len(rows) == 2 and sorted(r.get("pi", "person") for r in rows) == ["person", "strong"]
        assert all(r["played"] == 1 for r in rows)
        ids = {gid: next(x["sourcePlayerId"] for x in p.get(f"/api/games/{gid}/bgstats").json["data"]["players"]
                         if x["name"] == "the Pi (strong)") for gid in made}
        assert ids["g0"] == "the pi (strong)" and ids["g1"] == f"pi:strong:{made['g1']}"
    finally:
        s.kill()


def test_an_older_database_marks_its_pi_seats_once_from_the_log(tmp_path, server):
    """Rows from before the mark existed are marked from the log's own "pi" events when the file is opened."""
    db = tmp_path / "old.sqlite3"
    store = Store(str(db))
    rng = random.Random(8)
    setup, actions, final, _ = play_one(rng)
    who = dict(zip(setup.colors, ("Ann", "the Pi (easy)", "Carl", "Dana")))
    events = game_log(setup, actions, who, rng, undos=0)   # the Pi's seat: a "pi" event, as the table logs it
    assert ("pi", {"color": setup.colors[1], "level": "easy"}) in [(k, b) for k, b, _ in events]
    summary = history.summarize("old1", final, "finished", who)
    write_game(store, "old1", events, 1.7e9, summary)
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE play_players DROP COLUMN pi")   # the file as an older companion left it
    conn.close()
    again = Store(str(db))
    again.open()
    assert again.read("SELECT color, pi FROM play_players WHERE pi IS NOT NULL") == [(setup.colors[1], "easy")]
    again.close()
