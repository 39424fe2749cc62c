"""The history page, the phone's BG Stats link and the table's standings between games, in real Chromium.

PAGES_SCREENSHOTS=dir keeps screenshots at phone (390x844, 320x568) and table (1920x1080,
1280x720) sizes.
"""
from __future__ import annotations

import json
import random
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from history_games import write_abandoned, write_games
from pages_helpers import browser, devices  # noqa: F401
from server_helpers import choose

SIZES = {"390": (390, 844), "320": (320, 568), "1920": (1920, 1080), "1280": (1280, 720)}


@pytest.fixture(scope="module")
def old_server(tmp_path_factory):
    """A server on a database holding 40 finished games and one abandoned one."""
    from server_helpers import LiveServer

    db = tmp_path_factory.mktemp("hist-pages") / "h.sqlite3"
    made = write_games(str(db), 40, seed=77, names=("Anna", "Ben", "Chloé", "Dev", "Émile", "Fatou", "Gunnar"))
    gone = write_abandoned(str(db), "abandoned01", at=1.6e9 + 38.5 * 86400, seed=3)
    s = LiveServer(db, env={"COMPANION_RATE_LIMIT": "1000"})
    s.start()
    yield s, made, gone
    s.kill()


def sized(device, size: str) -> None:
    w, h = SIZES[size]
    device.page.set_viewport_size({"width": w, "height": h})


def play_out(devs: dict, gid: str, rng: random.Random) -> dict:
    view = next(iter(devs.values())).view(gid)
    while view["phase"] == "playing":
        mine = devs[view["to_act"]].view(gid)
        status, view = devs[view["to_act"]].api("POST", f"/api/games/{gid}/actions",
                                                dict(choose(mine, rng), expect_seq=mine["seq"]))
        assert status == 200, view
    return view


def test_history_page_lists_games_newest_first_filters_and_opens_a_tally(old_server, devices):
    server, made, _ = old_server
    d = devices(server)
    sized(d, "390")
    d.goto("/history")
    d.page.wait_for_selector("#games li.game")
    first = d.page.eval_on_selector_all("#games li.game", "els => els.map(e => e.dataset.game)")
    newest = [m["id"] for m in reversed(made)]
    assert [g for g in first if g != "abandoned01"] == newest and first.index("abandoned01") == 1
    assert len(first) == 41 and d.page.is_hidden("#more")
    listed = d.api("GET", "/api/standings")[1]["all"]
    assert d.page.eval_on_selector_all("#standings tr[data-key]", "els => els.map(e => e.dataset.key)") == \
        [r["key"] for r in listed]
    d.shot("history-phone-390")
    sized(d, "320")
    d.shot("history-phone-320")
    sized(d, "390")

    # Filter: "emile" finds Émile's games and only those.
    d.page.fill("#player", "emile")
    d.page.click("#filter button[type=submit]")
    want = [m["id"] for m in reversed(made) if "Émile" in m["names"].values()]
    d.page.wait_for_function("n => document.querySelectorAll('#games li.game').length === n", arg=len(want))
    assert d.page.eval_on_selector_all("#games li.game", "els => els.map(e => e.dataset.game)") == want
    assert all("Émile" in t for t in d.page.eval_on_selector_all("#games li.game", "els => els.map(e => e.innerText)"))

    # The final tally: the end screen's own panel, scores as the game's view has them.
    d.page.locator("#games li.game").first.get_by_role("button").first.click()
    d.page.wait_for_selector("#tally:not([hidden]) table.scores")
    view = d.view(want[0])
    totals = d.page.eval_on_selector_all("#tally tr.tot:first-of-type td, #tally tr.tot td", "els => els.map(e => e.innerText)")
    for c, p in view["scores"]["players"].items():
        assert str(p["total"]) in totals
    d.shot("history-tally-390")
    sized(d, "320")
    d.shot("history-tally-320")
    d.page.click("#close-tally")
    assert d.page.is_hidden("#tally")


def test_history_page_on_the_table_screen(old_server, devices):
    server, made, _ = old_server
    for size in ("1920", "1280"):
        d = devices(server, table=True)
        sized(d, size)
        d.goto("/history")
        d.page.wait_for_selector("#games li.game")
        d.page.wait_for_selector("#standings table")
        # Two columns: the standings beside the list.
        boxes = [d.page.locator(s).bounding_box() for s in ("#standings-box", "#games-box")]
        assert boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"] + 1
        d.shot(f"history-table-{size}")


def test_phone_end_screen_offers_bgstats_and_the_table_shows_tonight(old_server, devices):
    server, made, _ = old_server
    devs = {c: devices(server, name=c) for c in ("blue", "red")}
    host = devs["blue"]
    status, made_game = host.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"],
                                                        "removed_districts": ["north", "east"], "seed": 3})
    gid = made_game["id"]
    for c, d in devs.items():
        assert d.api("POST", f"/api/games/{gid}/seats/{c}", {"name": {"blue": "Anna", "red": "Zoë"}[c]})[0] == 200
    assert host.api("POST", f"/api/games/{gid}/start")[0] == 200
    tv = devices(server, table=True)
    tv.goto("/table")
    play_out(devs, gid, random.Random(5))

    d = devs["red"]
    sized(d, "390")
    d.goto(f"/g/{gid}")
    d.wait_phase("finished")
    d.page.wait_for_selector("#bgstats-app")
    link = d.page.get_attribute("#bgstats-app", "href")
    web = d.page.get_attribute("#bgstats-web", "href")
    assert link.startswith("bgstats://app.bgstatsapp.com/createPlay.html?data=")
    assert web.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    data = json.loads(parse_qs(urlsplit(link).query)["data"][0])
    assert data["sourcePlayId"] == gid and [p["name"] for p in data["players"]] == ["Anna", "Zoë"]
    view = d.view(gid)
    assert {p["name"]: p["score"] for p in data["players"]} == \
        {"Anna": view["scores"]["players"]["blue"]["total"], "Zoë": view["scores"]["players"]["red"]["total"]}
    d.shot("phone-end-bgstats-390", at="#end")
    sized(d, "320")
    d.shot("phone-end-bgstats-320", at="#end")

    # The table display between games: tonight's standings (this game only: the old ones are years ago).
    tv.wait_phase("finished")
    tv.page.wait_for_selector("#tonight:not([hidden]) #tonight-rows tr")
    rows = tv.page.eval_on_selector_all("#tonight-rows tr", "els => els.map(e => e.innerText)")
    assert len(rows) == 2 and any("Zoë" in r for r in rows) and any("Anna" in r for r in rows)
    for size in ("1920", "1280"):
        sized(tv, size)
        tv.shot(f"table-tonight-{size}")


def test_abandoned_rows_are_listed_without_a_tally(old_server, devices):
    """An abandoned game shows its status and its record link; the tally (every card) is offered for finished games."""
    server, made, gone = old_server
    d = devices(server)
    sized(d, "390")
    d.goto("/history")
    item = d.page.locator(f'#games li.game[data-game="{gone["id"]}"]')
    item.wait_for()
    assert "abandoned" in item.get_attribute("class")
    assert item.locator("button").count() == 0 and item.locator("a").count() == 1
    finished = d.page.locator(f'#games li.game[data-game="{made[-1]["id"]}"]')
    assert finished.locator("button").count() == 1
    d.shot("history-abandoned-390", at=f'#games li.game[data-game="{gone["id"]}"]')
    # No points for an abandoned game (issue 20: listed with "0" for everyone): its seats and its badge only.
    assert item.locator(".seatline").count() == len(gone["names"])
    assert item.locator(".pts").count() == 0 and finished.locator(".pts").count() > 0


def test_every_standings_column_is_on_a_320_px_screen(old_server, devices):
    """Issue 20: at 320 px the last column ("Avg. margin", ±) was cut off by the box."""
    server, _, _ = old_server
    d = devices(server)
    sized(d, "320")
    d.goto("/history")
    d.page.wait_for_selector("#standings tr[data-key]")
    cut = d.page.evaluate("""() => {
      const box = document.getElementById('standings'), t = box.querySelector('table');
      const right = box.getBoundingClientRect().right;
      return [...t.querySelectorAll('tr:first-child th')].filter(th => th.getBoundingClientRect().right > right + 1)
        .map(th => th.textContent);
    }""")
    assert cut == [] and d.page.evaluate("() => document.documentElement.scrollWidth") <= 320


def test_the_pis_seats_are_named_in_the_pages_language_in_the_history_and_standings(tmp_path, devices):
    """An older log kept a Pi seat's name as "the Pi (strong)"; a German page says its one name, "Pi Rot (stark)"
    (issue 40), everywhere."""
    from server_helpers import LiveServer

    db = tmp_path / "pi.sqlite3"
    write_games(str(db), 6, seed=11, names=("the Pi (strong)", "the Pi (easy)", "Anna", "Ben"))
    s = LiveServer(db, env={"COMPANION_RATE_LIMIT": "1000"})
    s.start()
    try:
        d = devices(s, lang="de")
        sized(d, "390")
        d.goto("/history")
        d.page.wait_for_selector("#games li.game")
        d.page.wait_for_selector("#standings table")
        text = d.page.inner_text("body")
        assert re.search(r"Pi (Blau|Rot|Weiß|Grau) \(stark\)", text) and re.search(r"Pi (Blau|Rot|Weiß|Grau) \(leicht\)", text)
        assert "the Pi (" not in text and "der Pi (" not in text
        d.shot("history-pi-de-390")
        sized(d, "320")
        d.shot("history-pi-de-320")
        for size in ("1280", "1920"):
            t = devices(s, lang="fr", table=True)
            sized(t, size)
            t.goto("/history")
            t.page.wait_for_selector("#standings table")
            text = t.page.inner_text("body")
            assert "the Pi (" not in text and "le Pi (" not in text and re.search(r"Pi (Bleu|Rouge|Blanc|Gris) \(fort\)", text)
            t.shot(f"history-pi-fr-{size}")
    finally:
        s.kill()
