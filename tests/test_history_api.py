"""The history over HTTP on a real server: BG Stats links, the CSV, name merges, and no cards in any of it."""
from __future__ import annotations

import csv
import io
import json
import random
from urllib.parse import parse_qs, urlsplit

import pytest

from server_helpers import create_game, play, score_record

PLAYERS = {"blue": "Åsa", "red": "Bruno", "white": "Chloé"}


@pytest.fixture(scope="module")
def night(server):
    """Three games played through the API by phones; the third ends with the last two seats swapped around."""
    from server_helpers import Phone

    phones = {c: Phone(server) for c in PLAYERS}
    done = []
    for i, colors in enumerate((("blue", "red", "white"), ("red", "white", "blue"), ("white", "blue"))):
        host = phones[colors[0]]
        gid = create_game(host, colors, mode="expert" if i == 1 else "family", seed=100 + i)
        for c in colors:
            r = phones[c].post(f"/api/games/{gid}/seats/{c}", {"name": PLAYERS[c]})
            assert r.status == 200, r
        assert host.post(f"/api/games/{gid}/start").status == 200
        play(gid, {c: phones[c] for c in colors}, random.Random(i))
        record = host.get(f"/api/games/{gid}/record").json
        done.append({"id": gid, "colors": colors, "record": record, "printed": score_record(record), "host": host})
    return phones, done


def decode(link: str, scheme: str) -> dict:
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == (scheme, "app.bgstatsapp.com", "/createPlay.html")
    query = parse_qs(parts.query, strict_parsing=True)
    assert list(query) == ["data"] and len(query["data"]) == 1
    return json.loads(query["data"][0])


def test_the_bgstats_link_decodes_to_exactly_the_play(server, night):
    phones, done = night
    for game in done:
        gid = game["id"]
        answers = [phones[c].get(f"/api/games/{gid}/bgstats") for c in game["colors"]]
        assert all(a.status == 200 for a in answers)
        data = decode(answers[0].json["app"], "bgstats")
        assert decode(answers[0].json["web"], "https") == data
        assert all(a.json == answers[0].json for a in answers)   # the same on every phone, every tap
        assert list(data) == ["sourceName", "sourcePlayId", "playDate", "durationMin", "board", "comments", "game",
                              "players"]
        assert data["sourcePlayId"] == gid and isinstance(data["sourceName"], str) and data["sourceName"]
        assert data["board"] == {"family": "Family", "expert": "Expert"}[game["record"]["mode"]]
        assert data["game"] == {"name": "Metropolys", "bggId": 25568, "highestWins": True, "noPoints": False,
                                "sourceGameId": "metropolys"}
        date = data["playDate"]
        assert len(date) == 19 and date[4] == date[7] == "-" and date[10] == " " and date[13] == date[16] == ":"
        assert type(data["durationMin"]) is int and data["durationMin"] >= 0
        printed = game["printed"]
        # startPlayer on exactly the player who opened the first call: the first action in the log.
        first = next(json.loads(b) for _, _, kind, b in server.events(gid) if kind == "action")
        assert [p["startPlayer"] for p in data["players"]].count(True) == 1
        for p, seat in zip(data["players"], game["record"]["players"]):
            assert list(p) == ["name", "sourcePlayerId", "score", "rank", "winner", "startPlayer"]
            assert p["name"] == PLAYERS[seat["color"]] and p["name"] == seat["name"]
            assert p["score"] == printed["players"][seat["color"]]["total"] and type(p["score"]) is int
            assert p["winner"] is (seat["color"] in printed["winners"])
            assert p["startPlayer"] is (seat["color"] == first["player"])
            better = {q["score"] for q in data["players"] if q["score"] > p["score"]}
            assert p["rank"] == 1 if p["winner"] else p["rank"] > 1 and p["rank"] >= len(better) + 1
        winners = [PLAYERS[c] for c in printed["winners"]]
        assert all(w in data["comments"] for w in winners) and "\n" not in data["comments"]


def test_the_end_screen_link_is_only_for_a_finished_game(server, night, phone):
    phones, _ = night
    host = phone(server)
    gid = create_game(host, ("blue", "red"), seed=7)
    r = host.get(f"/api/games/{gid}/bgstats")
    assert r.status == 409 and r.json["code"] == "not_finished"
    assert host.get("/api/games/nosuchgame/bgstats").status == 404


def test_the_csv_opens_with_the_csv_module_and_sums_to_the_same_totals(server, night, phone):
    _, done = night
    r = phone(server).get("/api/history.csv")
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.body.decode("utf-8"), newline="")))
    for game in done:
        mine = [row for row in rows if row["game"] == game["id"]]
        assert [row["color"] for row in mine] == list(game["colors"])
        assert {row["color"]: int(row["score"]) for row in mine} == \
            {c: v["total"] for c, v in game["printed"]["players"].items()}
        assert sum(int(row["score"]) for row in mine) == sum(v["total"] for v in game["printed"]["players"].values())
        assert {row["color"] for row in mine if row["winner"] == "1"} == set(game["printed"]["winners"])
        assert [row["name"] for row in mine] == [PLAYERS[c] for c in game["colors"]]


def test_history_lists_ended_games_only_and_never_a_card(server, night, phone):
    _, done = night
    watcher = phone(server)
    live = create_game(watcher, ("blue", "red", "white", "gray"), seed=9)
    r = watcher.get("/api/history?limit=500")
    assert r.status == 200
    ids = [e["id"] for e in r.json["games"]]
    assert live not in ids and all(g["id"] in ids for g in done)
    assert b'"area"' not in r.body and b'"neighborhood"' not in r.body
    for g in done:
        for p in g["record"]["players"]:
            for card in (p["area"], p["neighborhood"]):
                if card:
                    assert f'"{card}"'.encode() not in r.body
    assert watcher.get("/api/history?offset=x").status == 400


def test_only_the_host_of_the_game_on_the_table_merges_names(server, night, phone):
    phones, done = night
    stranger = phone(server)
    n = len(server.events())
    r = stranger.post("/api/names/merge", {"alias": "Bruno", "into": "Åsa"})
    assert r.status == 403 and r.json["code"] == "not_host"
    assert stranger.post("/api/names/merge", {"alias": "Bruno"}).status == 400
    host = phone(server)
    gid = create_game(host, ("blue", "red"), seed=11)   # the game on the table now: this phone is its host
    r = host.post("/api/names/merge", {"alias": "bruno", "into": "ÅSA"})
    assert r.status == 201, r
    standing = {row["key"]: row for row in r.json["standings"]["all"]}
    assert "bruno" not in standing and set(standing["asa"]["spellings"]) == {"Åsa", "Bruno"}
    assert standing["asa"]["played"] == sum(("blue" in g["colors"]) + ("red" in g["colors"]) for g in done)
    assert len(server.events()) == n + 1   # the new game's create; a merge is a row of its own table
    got = host.get("/api/history?player=Bruno&limit=500").json
    assert {e["id"] for e in got["games"]} >= {g["id"] for g in done if "blue" in g["colors"]}
    r = host.post("/api/names/merge", {"alias": "Åsa", "into": "Bruno"})
    assert r.status == 409 and r.json["code"] == "bad_merge"
    assert host.post("/api/names/merge", {"alias": "Bruno", "into": "Bruno"}).status == 201   # undone by a new row
    assert gid


def test_tonight_counts_only_recent_games(server, night, phone):
    _, done = night
    r = phone(server).get("/api/standings?tonight=1")
    assert r.status == 200
    assert sum(row["played"] for row in r.json["all"]) == sum(len(g["colors"]) for g in done)
