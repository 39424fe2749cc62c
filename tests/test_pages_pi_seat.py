"""A seat the Pi plays, on the pages (issue 32): the host gives it a colour on their phone's lobby, the table screen
says its moves in the words of the board and names its pieces in the call-over steps; the phone page does the same in
each engine phones run (tests/engines.py). One server per module, its Pi acting at once (COMPANION_BOT_DELAY=0)."""
from __future__ import annotations

import pytest

from companion.lang import i18n
from companion.model.seats import name_for
from conftest import FAST
from engines import phone as make_phone
from engines import wait_live
from pages_helpers import SHOTS, browser, devices, driver, shots_at  # noqa: F401  (fixtures)
from server_helpers import LiveServer, Phone, create_game
from test_pages_engines import SHOWN, red_acts

PHONES = [(320, 568), (390, 844)]
TABLES = [(1920, 1080), (1280, 720)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("pi-pages") / "companion.sqlite3", env=dict(FAST, COMPANION_BOT_DELAY="0"))
    s.start()
    yield s
    s.kill()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def pi_line(lang: str, view: dict) -> str:
    """What every screen says of the Pi's last move, from the view's own log (the server's facts)."""
    last = view["log"][-1]
    who = name_for(pi_level(view, last["color"]), last["color"], lang)   # its one name: "Pi Red (strong) bids 5 …"
    if last["kind"] == "pass":
        return cap(i18n.t(lang, "pi_pass", player=who))
    return cap(i18n.t(lang, "pi_bid", player=who, value=last["value"], nb=last["neighborhood"],
                      color=i18n.term(lang, last["color"])))


def pi_level(view: dict, color: str) -> str:
    return next(p["pi"] for p in view["players"] if p["color"] == color)


def pi_build_step(lang: str, ended: dict, view: dict) -> str:
    who = name_for(pi_level(view, ended["color"]), ended["color"], lang)
    params = dict(player=who, value=ended["value"], nb=ended["neighborhood"], color=i18n.term(lang, ended["color"]))
    if ended["token"]:
        return i18n.t(lang, "step_build_token_pi", token=i18n.term(lang, ended["token"]), **params)
    return i18n.t(lang, "step_build_pi", **params)


def test_the_host_gives_a_colour_to_the_pi_and_the_table_screen_says_its_moves_and_steps(server, devices):  # noqa: F811
    host = devices(server, lang="de", name="Ann")   # the host's phone in German, the table screen in English
    status, made = host.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"],
                                                   "removed_districts": ["north", "east"], "seed": 21,
                                                   "pace": "timer"})   # the board's pace: test_pages_board_steps
    assert status == 201, made
    gid = made["id"]
    assert host.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    table = devices(server, table=True)
    table.goto("/table")
    host.goto(f"/g/{gid}")
    host.wait_seq(2)
    # Beside the free colour on the host's phone: the Pi's level. Picking one gives it the seat.
    shots_at(host, "pi-lobby-free", PHONES, at="#lobby")
    host.page.select_option('select.pi-level[data-color="red"]', "strong")
    host.page.wait_for_function("t => document.getElementById('lobby-seats').textContent.includes(t)",
                                arg="Pi Rot (stark)")   # its one name, as every screen says it
    shots_at(host, "pi-lobby", PHONES, at="#lobby")
    assert host.view(gid)["players"][1]["pi"] == "strong"
    host.press("#start")
    host.wait_phase("playing")
    seen_move = seen_steps = False
    view = host.view(gid)
    while view["phase"] == "playing" and not (seen_move and seen_steps):
        if view["to_act"] == "blue":
            legal = view["legal"]
            # Blue passes whenever it may, so that the Pi wins calls and its pieces are in the steps.
            move = {"pass": True} if legal["pass"] else {"bid": sorted(legal["neighborhoods"])[0],
                                                          "value": legal["neighborhoods"][sorted(legal["neighborhoods"])[0]][0]}
            status, view = host.api("POST", f"/api/games/{gid}/actions", dict(move, expect_seq=view["seq"]))
            assert status == 200, view
            continue
        table.page.wait_for_function("n => +document.getElementById('app').dataset.seq > n", arg=view["seq"])
        view = host.view(gid)
        table.wait_seq(view["seq"])
        if view["log"] and view["log"][-1]["color"] == "red" and view["phase"] == "playing":
            assert table.text("#pimove .pmtext") == pi_line("en", view)
            assert host.page.wait_for_function("t => document.querySelector('#pimove .pmtext') && document.querySelector('#pimove .pmtext').textContent === t",
                                               arg=pi_line("de", view))
            if not seen_move:
                shots_at(table, "pi-table-move", TABLES)
                shots_at(host, "pi-phone-move", PHONES, at="#pimove")
            seen_move = True
        # A call the Pi won: it opens the next one at once, and the card of the call it won stays up with its steps.
        over = view["log"][-2].get("ended") if len(view["log"]) > 1 and len(view["call"]) == 1 else None
        if over and over["color"] == "red" and view["phase"] == "playing":
            steps = table.page.eval_on_selector_all("#callover ol.steps li", "els => els.map(e => e.textContent)")
            assert steps[0] == pi_build_step("en", over, view), steps
            if not seen_steps:
                shots_at(table, "pi-table-steps", TABLES)
            seen_steps = True
    assert seen_move and seen_steps


def view_of(p) -> dict:
    return p.js("() => window.__phone.view")


def wait_for_pi(host: Phone, gid: str) -> None:
    """Until the Pi has answered (it acts at once: COMPANION_BOT_DELAY=0), on the live socket."""
    view = host.view(gid)
    if view["phase"] == "playing" and view["to_act"] != "red":
        sock = host.ws(gid)
        while view["phase"] == "playing" and view["to_act"] != "red":
            view = sock.wait_seq(view["seq"] + 1, timeout=30)
        sock.close()


@pytest.fixture(scope="module")
def playwright():
    return driver()


@pytest.mark.parametrize("engine", ["webkit", "gecko"])
def test_a_phone_beside_the_pi_says_its_moves_in_each_engine(engine, server, playwright):
    """The Pi opens (blue, the first seat); the phone at red is told each of its moves; it passes back."""
    host = Phone(server)
    gid = create_game(host, ["blue", "red"], seed=8, pace="timer")
    assert host.post(f"/api/games/{gid}/seats/blue/pi", {"level": "normal"}).status == 200
    p = make_phone(engine, playwright)
    try:
        p.open(f"{server.origin}/g/{gid}")
        wait_live(p)
        p.wait(SHOWN, "#join-colors button")
        p.click("#join-colors button")
        p.js("() => { document.getElementById('join-name').value = 'Zoë'; }")
        p.click("#join button[type=submit]")
        p.wait("() => !!(window.__phone.view && window.__phone.view.you && window.__phone.view.you.color === 'red')")
        lobby = p.js("() => document.getElementById('lobby-seats').textContent")
        assert "Pi Blue (normal)" in lobby
        assert host.post(f"/api/games/{gid}/start").status == 200
        wait_for_pi(host, gid)
        told = 0
        for _ in range(30):
            view = host.view(gid)
            if view["phase"] != "playing" or told >= 3:
                break
            assert view["to_act"] == "red"   # the Pi has acted by the time the answer to red's move came back
            wait_live(p, view["seq"])
            if view["log"] and view["log"][-1]["color"] == "blue":
                p.wait("t => document.querySelector('#pimove .pmtext') && document.querySelector('#pimove .pmtext').textContent === t", pi_line("en", view))
                told += 1
            # Red passes when it may, else opens with the first legal neighborhood at its lowest value.
            legal = sorted(view_of(p)["legal"]["neighborhoods"])
            red_acts(p, host, gid, {"pass": True} if view["call"] else {"bid": legal[0]})
            wait_for_pi(host, gid)
        assert told >= 2
        assert p.problems() == []
    finally:
        p.close()


@pytest.mark.parametrize("size, people, level, lang", [((390, 844), 1, "strong", "en"), ((320, 568), 2, "easy", "de")])
def test_the_front_door_sets_up_one_or_two_people_against_the_pi(server, devices, size, people, level, lang):  # noqa: F811
    """Issue 40, item 4: the setup offers "play against the Pi" for one or two people; the first colours ticked are
    theirs, the Pi plays the rest at the level chosen there, and the game it creates has those Pi seats."""
    d = devices(server, lang=lang)
    d.page.set_viewport_size({"width": size[0], "height": size[1]})
    d.page.on("dialog", lambda dialog: dialog.accept())   # "the game on the table stops being shown": yes
    d.goto("/")
    d.page.wait_for_selector("#vs-pi")
    assert d.page.is_hidden("#vs-pi-more")   # people play every colour unless the host says otherwise
    d.page.locator("#vs-pi label.choice", has_text=i18n.t(lang, "vs_pi_one" if people == 1 else "vs_pi_two")).tap()
    d.page.select_option("#pi-level", level)
    ticked = d.page.eval_on_selector_all("#seats .seat-row", "rows => rows.filter(r => r.querySelector('input').checked)"
                                                               ".map(r => r.dataset.color)")
    assert len(ticked) == 3   # the form's first three colours
    mine, pis = ticked[:people], ticked[people:]
    said = i18n.t(lang, "vs_pi_seats", people=", ".join(cap(i18n.term(lang, c)) for c in mine),
                  pis=", ".join(name_for(level, c, lang) for c in pis))
    assert d.text("#vs-pi-seats") == said
    assert d.page.eval_on_selector_all("#seats .pi-seat", "rows => rows.map(r => r.dataset.color)") == pis
    assert d.page.evaluate("() => document.documentElement.scrollWidth") <= size[0]
    d.page.locator("#vs-pi").scroll_into_view_if_needed()
    d.shot(f"setup-vs-pi-{size[0]}x{size[1]}", at="#seats")
    d.press("#create")
    d.page.wait_for_url("**/g/*")
    gid = d.page.url.rsplit("/", 1)[1]
    d.page.wait_for_function("n => document.getElementById('lobby-seats').textContent.includes(n)",
                             arg=name_for(level, pis[-1], lang))
    view = d.view(gid)
    assert {p["color"]: p.get("pi") for p in view["players"]} == {**{c: None for c in mine}, **{c: level for c in pis}}
    assert view["host"] and view["phase"] == "lobby"
    shots_at(d, f"lobby-vs-pi-{size[0]}x{size[1]}", [size], at="#lobby")


FIRST_SCREEN_JS = """() => {
  const box = s => { const e = document.querySelector(s); if (!e || !e.offsetParent) return null;
                     const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return {winner: box('#end-top .winner'), again: box('#rematch-rotate'), tally: box('#end table.scores'),
          height: innerHeight, width: document.documentElement.scrollWidth};
}"""


def test_a_finished_phone_shows_the_winner_and_play_again_on_its_first_screen(server, devices):  # noqa: F811
    """Issue 40, item 5: at the end the host's phone opens on the winner and "Play again" (the rematch), the tally
    below them, at 390x844 and 320x568; before, "Play again" stood some 2,800 px down, under the whole tally."""
    import random

    from server_helpers import choose
    d = devices(server, name="Ann")
    status, made = d.api("POST", "/api/games", {"mode": "expert", "players": ["blue", "red"], "seed": 4,
                                                "removed_districts": ["north", "east"], "pace": "timer"})
    assert status == 201, made
    gid, rng = made["id"], random.Random(4)
    assert d.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    assert d.api("POST", f"/api/games/{gid}/seats/red/pi", {"level": "easy"})[0] == 200
    assert d.api("POST", f"/api/games/{gid}/start")[0] == 200
    view = d.view(gid)
    while view["phase"] == "playing":
        if view["to_act"] == "blue":
            # Ann passes whenever she may: the Pi builds on and ends the game quickly (its last building)
            status, view = d.api("POST", f"/api/games/{gid}/actions", dict(choose(view, rng, 1.0), expect_seq=view["seq"]))
            assert status == 200, view
        else:
            d.page.wait_for_timeout(30)   # the Pi acts at once (COMPANION_BOT_DELAY=0)
            view = d.view(gid)
    winners = [name_for("easy", "red") if c == "red" else "Ann (Blue)" for c in view["scores"]["winners"]]
    for w, h in PHONES:
        d.page.set_viewport_size({"width": w, "height": h})
        d.goto(f"/g/{gid}")
        d.page.wait_for_selector("#end-top .winner")
        d.page.wait_for_selector("#rematch-rotate", state="visible")
        first = d.page.evaluate(FIRST_SCREEN_JS)
        d.shot(f"finished-phone-{w}x{h}")
        assert d.text("#end-top .winner") == i18n.t("en", "winner" if len(winners) == 1 else "winners_shared",
                                                   players=", ".join(winners))
        assert 0 <= first["winner"][0] and first["winner"][1] <= h, first   # in the first screen, as it opens
        assert 0 <= first["again"][0] and first["again"][1] <= h, first
        assert first["tally"][0] >= first["again"][1], first                # the tally under them
        assert first["width"] <= w
