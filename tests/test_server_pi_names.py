"""Names that cannot pass for the Pi (issue 42, item 3): a person may not take a name the Pi's seats go by, in any
language the pages speak, and history, standings and BG Stats tell the Pi's seats apart by what they were.
One name for each Pi seat (issue 40, item 4): "Pi Red (strong)" in every view, export and page, in en/de/fr."""
from __future__ import annotations

import random
import sqlite3

import pytest

from companion.model.seats import name_for
from companion.game.state import COLORS
from companion.lang import i18n
from companion.store import history
from companion.store.db import Store
from conftest import FAST
from history_games import game_log, play_one, write_game
from pages_helpers import browser, devices, shots_at  # noqa: F401  (fixtures)
from server_helpers import LiveServer, Phone, create_game
from test_server_pi_seat import play_to_the_end

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
        rows = [r for r in p.get("/api/standings").json["all"] if r["name"] == "the Pi (strong)" or "pi" in r]
        pi = name_for("strong", made["g1"])   # the Pi's seat under its one name (issue 40), the person's kept
        assert sorted((r["name"], r.get("pi", "person")) for r in rows) == [(pi, "strong"), ("the Pi (strong)", "person")]
        assert all(r["played"] == 1 for r in rows)
        ids = {gid: next(x["sourcePlayerId"] for x in p.get(f"/api/games/{gid}/bgstats").json["data"]["players"]
                         if x["name"] in ("the Pi (strong)", pi)) for gid in made}
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


ONE = {"en": {"red": "Pi Red (strong)", "white": "Pi White (easy)"},
       "de": {"red": "Pi Rot (stark)", "white": "Pi Weiß (leicht)"},
       "fr": {"red": "Pi Rouge (fort)", "white": "Pi Blanc (facile)"}}


def other_names(lang: str) -> list[str]:
    """What the Pi's seats were called before they had one name: "the Pi (Gray)", "the Pi (strong)", "Red: the Pi,
    strong" (and their German and French), none of which may stand on a page any more."""
    out = []
    for level in ("easy", "normal", "strong"):
        said = i18n.t(lang, "pi_level_" + level)
        out.append(i18n.t(lang, "pi_name", level=said))
        for c in COLORS:
            colour = i18n.term(lang, c)
            out += [i18n.t(lang, "pi_seat", color=colour[:1].upper() + colour[1:], level=said),
                    i18n.t(lang, "pi_who", color=colour[:1].upper() + colour[1:])]
    return out


def test_each_pi_seat_has_one_name_in_every_view_export_and_page_in_each_language(tmp_path, devices):  # noqa: F811
    """A Family game, Ann (blue) against the Pi at red (strong) and white (easy), played to the end: the views, the
    front door, the history, the standings and BG Stats call each Pi seat by its one name; the finished game's phone
    page, the table screen and the history page in en/de/fr say it so, and never an older name or a colour after it.
    A server of its own: its game is the one the table screen and the front door show."""
    server = LiveServer(tmp_path / "one.sqlite3", env=dict(FAST, COMPANION_BOT_DELAY="0"))
    server.start()
    try:
        one_name_everywhere(server, devices)
    finally:
        server.kill()


def one_name_everywhere(server, devices) -> None:
    host = Phone(server)
    gid = create_game(host, ("blue", "red", "white"), seed=5, pace="timer")
    assert host.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
    for color, level in (("red", "strong"), ("white", "easy")):
        assert host.post(f"/api/games/{gid}/seats/{color}/pi", {"level": level}).status == 200
    pis = {"red": "strong", "white": "easy"}
    one = ONE["en"]
    named = lambda players: {p["color"]: p["name"] for p in players}   # noqa: E731
    assert named(host.view(gid)["players"]) == {"blue": "Ann", **one}
    assert named(host.get("/api/games/current").json["players"]) == {"blue": "Ann", **one}
    assert host.post(f"/api/games/{gid}/start").status == 200
    sock = host.ws(gid)
    end = play_to_the_end(gid, host, "blue", random.Random(5), sock)
    sock.close()
    assert end["phase"] == "finished" and named(end["players"]) == {"blue": "Ann", **one}
    row = next(g for g in host.get("/api/history").json["games"] if g["id"] == gid)
    assert named(row["players"]) == {"blue": "Ann", **one}
    standing = {r["name"]: r for r in host.get("/api/standings").json["all"]}
    assert {n: (r.get("pi"), r.get("color")) for n, r in standing.items() if n != "Ann"} == {
        one["red"]: ("strong", "red"), one["white"]: ("easy", "white")}
    data = host.get(f"/api/games/{gid}/bgstats").json["data"]
    assert {p["name"]: p["sourcePlayerId"] for p in data["players"]} == {
        "Ann": "ann", one["red"]: "pi:strong:red", one["white"]: "pi:easy:white"}
    winners = [one.get(c, "Ann") for c in end["scores"]["winners"]]
    assert data["comments"].startswith("Winner" + ("s" if len(winners) > 1 else "") + ": " + " and ".join(winners))
    for lang in ("en", "de", "fr"):
        ones = ONE[lang]
        assert ones == {c: name_for(lv, c, lang) for c, lv in pis.items()}   # the server's one function
        said = [i18n.t(lang, "winner" if len(winners) == 1 else "winners_shared", players=", ".join(
            ones.get(c) or "Ann (" + i18n.term(lang, "blue").capitalize() + ")" for c in end["scores"]["winners"]))]
        phone, table = devices(server, lang=lang), devices(server, lang=lang, table=True)
        phone.goto(f"/g/{gid}")
        phone.page.wait_for_selector("#end-top .winner")
        table.page.emulate_media(reduced_motion="reduce")   # the end show at once: the tally, the winner, standings
        table.goto("/table")
        table.page.wait_for_selector('#end[data-reveal="done"] .winbox .winner')
        pages = {"phone": phone.page.inner_text("body"), "table": table.page.inner_text("body")}
        assert phone.text("#end-top .winner") == said[0]
        assert " ".join(table.text(".winbox .winner").split()) == said[0]   # its label on a line of its own
        if lang == "fr":   # looked at: the table's end show and the finished phone, each Pi seat by its one name
            shots_at(table, "table-end-pi-fr", [(1920, 1080), (1280, 720)])
            shots_at(phone, "phone-end-pi-fr", [(390, 844), (320, 568)])
        phone.goto("/history")
        phone.page.wait_for_selector("#standings table")
        pages["history"] = phone.page.inner_text("body")
        for where, text in pages.items():
            for c, name in ones.items():
                assert name in text, (lang, where, name)
                colour = i18n.term(lang, c)
                assert f"{name} ({colour[:1].upper() + colour[1:]})" not in text, (lang, where)
            assert [o for o in other_names(lang) if o.casefold() in text.casefold()] == [], (lang, where)
