"""What to do on the real board, on the phone (issue 40, items 1 and 2): in a solo game at the board's pace the
steps stand above the map until the person taps "Done on the board"; the held Pi then acts, once."""
from __future__ import annotations

import pytest

from companion.lang import i18n
from companion.pi_seat import name_for
from conftest import FAST
from pages_helpers import SHOTS, browser, devices, shots_at  # noqa: F401  (fixtures)
from server_helpers import LiveServer

PHONES = [(390, 844), (320, 568)]
TABLES = [(1920, 1080), (1280, 720)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = LiveServer(tmp_path_factory.mktemp("steps-pages") / "companion.sqlite3",
                   env=dict(FAST, COMPANION_BOT_DELAY="0", COMPANION_BOT_PROCESS="0"))
    s.start()
    yield s
    s.kill()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def held(phone, gid: str) -> dict:
    """Until a Pi holds its act for the board (a step pending, a Pi to act): the view then."""
    phone.page.wait_for_function(
        "() => { const v = window.__phone && window.__phone.view; return !!v && v.phase === 'playing'"
        " && v.to_act !== 'blue' && (v.board_pending || []).length > 0; }", timeout=30000)
    return phone.view(gid)


def test_the_steps_stand_above_the_map_until_done_on_the_board(server, devices):  # noqa: F811
    ann = devices(server, name="Ann")
    status, made = ann.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red", "white", "gray"],
                                                  "seed": 21})
    assert status == 201, made
    gid = made["id"]
    assert ann.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})[0] == 200
    for color in ("red", "white", "gray"):
        assert ann.api("POST", f"/api/games/{gid}/seats/{color}/pi", {"level": "easy"})[0] == 200
    ann.goto(f"/g/{gid}")
    table = devices(server, table=True)
    table.goto("/table")
    status, view = ann.api("POST", f"/api/games/{gid}/start")
    assert status == 200 and view["pace"] == "board" and view["to_act"] == "blue"
    nb = sorted(view["legal"]["neighborhoods"])[0]
    status, view = ann.api("POST", f"/api/games/{gid}/actions", {"bid": nb, "value": 1, "expect_seq": view["seq"]})
    assert status == 200, view
    view = held(ann, gid)
    # One Pi acted (its move, and the call's end if it won it), the next one waits.
    assert [s["step"] for s in view["board_pending"] if s["step"] != "call_end"] == [view["board_pending"][0]["step"]]
    assert view["board_pending"][0]["color"] == "red"
    step = view["board_pending"][0]
    ann.wait_seq(view["seq"])
    text = ann.text("#board-steps")
    levels = {p["color"]: p.get("pi") for p in view["players"]}
    who = name_for(levels["red"], "red")   # its one name (issue 40, item 4): "Pi Red (normal)"
    said = (cap(i18n.t("en", "pi_bid", player=who, value=step["value"], nb=step["neighborhood"], color="red"))
            if step["step"] == "bid" else cap(i18n.t("en", "pi_pass", player=who)))
    assert said in text and i18n.t("en", "board_steps_title") in text
    # Above the map: the list's bottom before the map's top, on the first screen.
    steps_box = ann.page.locator("#board-steps").bounding_box()
    map_box = ann.page.locator(".mapwrap").bounding_box()
    assert steps_box["y"] + steps_box["height"] <= map_box["y"], (steps_box, map_box)
    shots_at(ann, "phone-board-steps", PHONES)
    # The table screen shows the same steps, for the whole room, without a button (a person confirms).
    table.wait_seq(view["seq"])
    assert said in table.text("#board-steps") and not table.visible("#board-done")
    # Its log is never cut to fewer lines than the call has (issue 40, item 1), at either table size.
    for w, h in TABLES:
        table.page.set_viewport_size({"width": w, "height": h})
        table.page.wait_for_function("n => document.querySelectorAll('#log li').length >= n", arg=len(view["call"]),
                                     timeout=5000)
    shots_at(table, "table-board-steps", TABLES)
    # Done on the board: the held Pi (white) acts, once; the phone now lists white's step alone.
    ann.press("#board-done")
    ann.page.wait_for_function(
        "s => { const v = window.__phone.view; return (v.board_pending || []).length > 0"
        " && v.board_pending[0].seq > s; }", arg=step["seq"], timeout=30000)
    after = ann.view(gid)
    assert len([s for s in after["board_pending"] if s["step"] != "call_end"]) == 1, after["board_pending"]
    assert after["actions"] == view["actions"] + 1
    assert ann.visible("#board-done")
    # The host's undo question lists what the undo takes back: the Pi's moves since Ann's bid, each in the board's
    # words (issue 40, item 3); dismissed, nothing changes.
    took = ann.api("GET", f"/api/games/{gid}/undo")[1]
    assert took["count"] == after["actions"] >= 3
    with ann.page.expect_event("dialog") as info:
        ann.press("#undo")
    dialog = info.value
    question = dialog.message
    dialog.dismiss()
    for a in took["actions"][1:]:
        who = name_for(levels[a["color"]], a["color"])
        line = (i18n.t("en", "undone_also", player=who, value=a["value"], nb=a["neighborhood"],
                       color=i18n.term("en", a["color"])) if a["kind"] == "bid"
                else i18n.t("en", "undone_also_pass", player=who))
        assert cap(line) in question, (line, question)
    assert ann.view(gid)["actions"] == after["actions"]
