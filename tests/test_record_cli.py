"""`companion score` as RECORD.md promises it, run as a real subprocess; and records round-tripping."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games import BOARD, layout_with, random_game, random_setup, white_12_red_13, with_automatic_passes

from companion.game.record import RecordError, parse_action, replay, to_record
from companion.game.scoring import score
from companion.game import RuleError
from companion.game.state import Bid, Pass

COMPANION = Path(sys.executable).with_name("companion")
EIGHT = ["trendy", "subway", "subway_card", "archaeological", "archaeological_card", "area", "neighborhood", "highest"]

# A 2-player Family game laid out by hand (5/6/6 tokens; 7 center, 5 south, 5 west; north and east out).
TOKENS = {
    "C01": "trendy", "C02": "trendy", "C03": "subway", "C04": "subway", "C08": "subway",
    "C05": "archaeological", "C06": "archaeological",
    "S02": "trendy", "S03": "subway", "S07": "subway", "S04": "archaeological", "S05": "archaeological",
    "W01": "trendy", "W02": "trendy", "W03": "subway", "W04": "archaeological", "W05": "archaeological",
}
SPOTS = ("C01", "C03", "C05", "C07", "C09", "C11", "C13", "C15", "S02", "S04", "S06", "S08", "S10")


def blue_builds_everything(passes=True):
    """Blue opens every call with its next building; Red passes each time (its last pass is automatic)."""
    actions = []
    for value, nb in enumerate(SPOTS, 1):
        actions.append({"player": "blue", "bid": nb, "value": value})
        if passes:
            actions.append({"player": "red", "pass": True})
    return {
        "format": "metropolys-record/1", "mode": "family",
        "players": [{"color": "blue", "name": "Ann", "area": "lakes"}, {"color": "red", "name": "Ben", "area": "statues"}],
        "removed_districts": ["north", "east"], "tokens": dict(TOKENS), "actions": actions,
    }


def run(arg, stdin=None):
    p = subprocess.run([str(COMPANION), "score", str(arg)], input=stdin, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def ok(arg, stdin=None):
    code, out, err = run(arg, stdin)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert list(doc) == ["finished", "winners", "players"]
    for p in doc["players"].values():
        assert list(p) == ["total", "buildings", "breakdown"]
        assert list(p["breakdown"]) == EIGHT
        assert p["total"] == sum(p["breakdown"].values())
    return doc


def bad(arg, stdin=None):
    code, out, err = run(arg, stdin)
    assert code == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err[:-1]


def write(tmp_path, doc, name="game.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), "utf-8")
    return path


def test_a_finished_game_prints_its_scores(tmp_path):
    doc = ok(write(tmp_path, blue_builds_everything()))
    # Counted by hand: trendy C01+S02 = 6; subway C03 = 1 and its card 3; sites C05+S04 = -2 and the card -2;
    # lakes card: C03, C09, C11, C13, S04, S08 touch a lake = 6 x 3 = 18.
    assert doc == {
        "finished": True, "winners": ["blue"],
        "players": {
            "blue": {"total": 24, "buildings": 13, "breakdown": {
                "trendy": 6, "subway": 1, "subway_card": 3, "archaeological": -2, "archaeological_card": -2,
                "area": 18, "neighborhood": 0, "highest": 0}},
            "red": {"total": 0, "buildings": 0, "breakdown": dict.fromkeys(EIGHT, 0)},
        },
    }


def test_standard_input_and_a_record_without_its_automatic_passes(tmp_path):
    expected = ok(write(tmp_path, blue_builds_everything()))
    assert ok("-", json.dumps(blue_builds_everything(passes=True)).encode()) == expected
    no_last_pass = blue_builds_everything()
    no_last_pass["actions"].pop()  # Red's pass after Blue's 13 was automatic
    assert ok("-", json.dumps(no_last_pass).encode()) == expected


def test_an_unfinished_game_prints_finished_false_and_scores_as_if_it_ended_now(tmp_path):
    doc = blue_builds_everything()
    doc["actions"] = doc["actions"][:5]  # Blue built C01 and C03, then bid 3 in C05: that call is under way
    out = ok(write(tmp_path, doc))
    assert out["finished"] is False and out["winners"] == ["blue"]
    blue = out["players"]["blue"]
    assert blue["buildings"] == 2  # "A call still under way builds nothing"
    assert blue["breakdown"]["trendy"] == 3 and blue["breakdown"]["subway"] == 1 and blue["breakdown"]["area"] == 3
    doc["actions"] = []
    out = ok(write(tmp_path, doc))
    assert out["finished"] is False and out["winners"] == ["blue", "red"]


def test_a_call_nobody_can_continue_ends_even_at_the_end_of_the_record(tmp_path):
    doc = blue_builds_everything()
    doc["actions"] = [{"player": "blue", "bid": "C01", "value": 13}]  # Red cannot beat a 13
    out = ok(write(tmp_path, doc))
    assert out["finished"] is False and out["players"]["blue"]["buildings"] == 1
    assert out["players"]["blue"]["breakdown"]["trendy"] == 3


def test_illegal_action_names_its_number_and_says_why(tmp_path):
    doc = blue_builds_everything()
    doc["players"] = [{"color": c, "area": a} for c, a in zip(("blue", "gray", "white", "red"),
                                                           ("lakes", "statues", "bridges", "borders"))]
    doc["removed_districts"] = []
    doc["tokens"] = layout_with(4, seed=1)
    doc["actions"] = [{"player": "blue", "bid": "C03", "value": 1}, {"player": "gray", "bid": "C01", "value": 2},
                      {"player": "white", "bid": "C04", "value": 3}, {"player": "red", "bid": "C06", "value": 5}]
    assert bad(write(tmp_path, doc)) == "action 4: red cannot bid in C06: it is not adjacent to C04, the last bid"
    doc["actions"][3] = {"player": "red", "bid": "C05", "value": "5"}
    assert bad(write(tmp_path, doc)) == "action 4: red's bid needs a whole-number value, not '5'"
    doc["actions"][3] = {"player": "red", "pass": True, "bid": "C05"}
    assert bad(write(tmp_path, doc)).startswith("action 4: ")
    doc["actions"][1] = {"player": "red", "pass": True}
    assert bad(write(tmp_path, doc)) == "action 2: red cannot act now: it is gray's turn"
    doc["actions"][0] = {"player": "blue", "pass": True}
    assert bad(write(tmp_path, doc)) == "action 1: blue cannot pass: the start player must open the call with a bid"
    doc["actions"] = "none"
    assert bad(write(tmp_path, doc)) == "setup: actions must be a list"


def test_an_action_after_the_end_of_the_game_is_an_error(tmp_path):
    doc = blue_builds_everything()
    doc["actions"].append({"player": "red", "bid": "C02", "value": 1})
    assert bad(write(tmp_path, doc)) == "action 27: the game is over: red cannot act any more"
    doc["actions"][-1] = {"player": "red", "pass": True}  # the automatic pass was already written down
    assert bad(write(tmp_path, doc)) == "action 27: the game is over: red cannot act any more"


def test_bad_setups(tmp_path):
    doc = blue_builds_everything()
    doc["removed_districts"] = ["north", "south"]
    assert bad(write(tmp_path, doc)) == "setup: 2 players must remove two adjacent districts, not north and south"
    doc = blue_builds_everything()
    doc["players"][1]["area"] = "borders"
    assert bad(write(tmp_path, doc)) == "setup: red holds the borders card, which is left out of 2-player games"
    doc = blue_builds_everything()
    doc["tokens"]["S01"] = doc["tokens"].pop("S02")
    assert bad(write(tmp_path, doc)) == "setup: a token lies on S01, a blind alley, where tokens never go"
    doc = blue_builds_everything()
    doc["format"] = "metropolys-record/2"
    assert bad(write(tmp_path, doc)).startswith("setup: the format must be")
    for broken in ([], "x", None, 3):
        assert bad("-", json.dumps(broken).encode()).startswith("setup: ")


def test_unreadable_or_non_json_records(tmp_path):
    assert bad(tmp_path / "missing.json").startswith("setup: cannot read ")
    assert bad(tmp_path).startswith("setup: cannot read ")
    assert bad(write(tmp_path, "{not json")).startswith("setup: ")
    assert bad("-", b"").startswith("setup: ")
    assert bad("-", b"\xff\xfe{}").startswith("setup: ")
    (tmp_path / "latin.json").write_bytes(b'{"format": "\xe9"}')
    assert bad(tmp_path / "latin.json").startswith("setup: ")
    assert bad(write(tmp_path, "[" * 100000 + "]" * 100000)).startswith("setup: ")


def test_random_records_through_the_command_match_the_library(tmp_path):
    rng = random.Random(77)
    for i in range(12):
        setup, actions, states = random_game(rng, record_auto=0.5, max_actions=None if i % 3 else rng.randint(0, 60))
        doc = to_record(setup, actions)
        out = ok(write(tmp_path, doc, f"g{i}.json"))
        assert out == json.loads(json.dumps(score(states[-1], BOARD)))
        assert out["finished"] == states[-1].finished
        assert {c: p["buildings"] for c, p in out["players"].items()} == {
            c: sum(b.player == c for b in states[-1].built.values()) for c in setup.colors}


def test_replay_raises_record_error_with_where_and_sentence():
    doc = blue_builds_everything()
    doc["actions"].insert(0, {"player": "red", "bid": "C05", "value": 3})
    with pytest.raises(RecordError) as e:
        replay(doc)
    assert e.value.where == "action 1" and e.value.error.code == "not_your_turn"
    assert str(e.value) == "action 1: red cannot act now: it is blue's turn"


@pytest.mark.parametrize("change, said", [
    (lambda doc: [], "a record is a JSON object"),
    (lambda doc: {**doc, "format": "x"}, "the format must be 'metropolys-record/1', not 'x'"),
    (lambda doc: {**doc, "players": [{**doc["players"][0], "color": 5}, *doc["players"][1:]]},
     "player 1's color must be a string, not 5"),
    (lambda doc: {**doc, "players": "x"}, "players must be a list"),
    (lambda doc: {**doc, "players": [doc["players"][0], 7]}, "player 2 must be an object"),
    (lambda doc: {**doc, "players": [{**doc["players"][0], "name": 5}]}, "player 1's name must be a string, not 5"),
    (lambda doc: {**doc, "players": [{**doc["players"][0], "area": 5}]},
     "player 1's area card must be a string, not 5"),
    (lambda doc: {**doc, "players": [{**doc["players"][0], "neighborhood": 5}]},
     "player 1's neighborhood card must be a string, not 5"),
    (lambda doc: {**doc, "removed_districts": "north"}, "removed_districts must be a list"),
    (lambda doc: {**doc, "removed_districts": [5]}, "a removed district must be a string, not 5"),
    (lambda doc: {**doc, "tokens": []}, "tokens must be an object from neighborhood to token kind"),
    (lambda doc: {**doc, "tokens": {"C01": 5}}, "the token on C01 must be a string, not 5"),
    (lambda doc: {**doc, "mode": 7}, "the mode must be family or expert, not 7"),
    (lambda doc: {**doc, "actions": {"player": "blue", "pass": True}}, "actions must be a list"),
])
def test_a_bad_setup_is_named_where_it_is_with_its_own_sentence(change, said):
    """RECORD.md: a bad record "exits 2 with one line ... beginning setup:", the same line replay() raises."""
    with pytest.raises(RecordError) as e:
        replay(change(blue_builds_everything()))
    assert (e.value.where, str(e.value)) == ("setup", f"setup: {said}")
    assert e.value.error.code == ("bad_mode" if "mode" in said else "bad_record")


EITHER = 'an action is either {"player", "bid", "value"} or {"player", "pass": true}'


@pytest.mark.parametrize("raw, said", [
    (5, "an action must be an object"),
    ({"player": 5, "pass": True}, "the acting player must be a string, not 5"),
    ({"player": "blue", "pass": True, "value": 3}, "a pass has no value"),
    ({"player": "blue", "bid": "C01", "value": 3, "x": 1}, "a bid has no x"),
    ({"player": "blue", "bid": 5, "value": 3}, "the neighborhood of a bid must be a string, not 5"),
    ({"player": "blue", "bid": "C01", "value": "3"}, "blue's bid needs a whole-number value, not '3'"),
    ({"player": "blue", "bid": "C01", "value": True}, "blue's bid needs a whole-number value, not True"),
    ({"player": "blue"}, EITHER),
    ({"player": "blue", "pass": True, "bid": "C01"}, EITHER),
    ({"player": "blue", "pass": False}, EITHER),
])
def test_a_bad_action_says_what_is_wrong_with_it(raw, said):
    with pytest.raises(RuleError) as e:
        parse_action(raw)
    assert (e.value.code, e.value.sentence) == ("bad_record", said)


def test_a_record_without_actions_is_the_game_before_its_first_bid():
    """A record written as the table sits down holds the setup only: nothing built, the first player to bid."""
    doc = blue_builds_everything()
    del doc["actions"]
    state = replay(doc)
    assert state.setup.colors == ("blue", "red") and state.built == {} and state.moves == 0
    assert (state.to_act_color, state.call, state.finished) == ("blue", (), False)


def test_a_recorded_pass_and_bid_are_read_as_written():
    assert parse_action({"player": "blue", "pass": True}) == Pass("blue")
    assert parse_action({"player": "red", "bid": "C01", "value": 3}) == Bid("red", "C01", 3)


def test_a_player_without_an_area_card_is_told_so_by_the_setup_check():
    doc = blue_builds_everything()
    doc["players"][0].pop("area")
    with pytest.raises(RecordError) as e:
        replay(doc)
    assert str(e.value) == "setup: blue has no area card"


def test_the_players_names_come_from_the_record_and_a_missing_one_is_empty():
    doc = blue_builds_everything()
    doc["players"][1].pop("name")
    assert [s.name for s in replay(doc).setup.seats] == ["Ann", ""]


def test_utf8_whatever_the_locale_and_a_byte_order_mark_is_allowed(tmp_path):
    doc = blue_builds_everything()
    doc["players"][0]["name"] = "Zoë Ångström"
    plain = ok(write(tmp_path, doc))
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    p = subprocess.run([str(COMPANION), "score", str(path)], capture_output=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == plain
    p = subprocess.run([str(COMPANION), "score", "-"], input=path.read_bytes(), capture_output=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == plain


# RECORD.md: an automatic pass "may stand either right after the action that left that player without a legal
# bid, or where the turn would have come to that player (...); passes written at one point follow seating
# order, and this holds in the call that ends the game too. At either place it is accepted; anywhere else it
# is an error."

@pytest.mark.parametrize("players,mode", [(p, m) for p in (2, 3, 4) for m in ("family", "expert")])
def test_automatic_passes_left_out_or_written_at_either_place_score_the_same(tmp_path, players, mode):
    rng = random.Random(f"cli-{players}-{mode}")
    setup, actions, states = random_game(rng, random_setup(rng, players, mode))
    assert states[-1].finished
    expected = json.loads(json.dumps(score(states[-1], BOARD)))
    per_call = {}
    forms = {
        "left out": lambda call, seat: "out",
        "right after": lambda call, seat: "after",
        "where the turn reaches": lambda call, seat: "turn",
        "a mix per call": lambda call, seat: per_call.setdefault(call, rng.choice(("out", "after", "turn"))),
    }
    records = {name: with_automatic_passes(actions, states, place) for name, place in forms.items()}
    assert len({len(r) for r in records.values()}) > 1  # passes were written
    for name, record in records.items():
        assert ok(write(tmp_path, to_record(setup, record), f"{name}.json")) == expected, name


def test_issue_11_the_tables_way_scores_and_a_pass_anywhere_else_is_refused(tmp_path):
    setup, head, (gray_1, white_12, red_13), red_opens = white_12_red_13()
    blue, gray, white = Pass("blue"), Pass("gray"), Pass("white")
    expected = ok(write(tmp_path, to_record(setup, head + [gray_1, white_12, red_13, red_opens]), "plain.json"))
    assert expected["finished"] is False and expected["players"]["red"]["buildings"] == 1
    for i, calls in enumerate(([gray_1, white_12, red_13, blue, gray, white],   # "Red bids 13; Blue: pass; Gray: pass"
                               [gray_1, white_12, blue, gray, red_13, white],   # right after the cause
                               [gray_1, white_12, gray, red_13, blue])):        # a mix, White's left out
        assert ok(write(tmp_path, to_record(setup, head + calls + [red_opens]), f"{i}.json")) == expected
    n = len(head) + 3  # Red's 13
    # Written after a later decision (Red opened the next call; Blue is to act):
    assert bad(write(tmp_path, to_record(setup, head + [gray_1, white_12, red_13, red_opens, gray]))) == (
        f"action {n + 2}: gray cannot act now: it is blue's turn")
    # For a player who still had a legal bid (Red's 13), while White was to act:
    assert bad(write(tmp_path, to_record(setup, head + [gray_1, Pass("red")]))) == (
        f"action {n - 1}: red cannot act now: it is white's turn")
    # Out of seating order at one point:
    assert bad(write(tmp_path, to_record(setup, head + [gray_1, white_12, red_13, gray, blue]))) == (
        f"action {n + 2}: blue cannot act now: it is red's turn")


def test_a_record_written_from_a_setup_holds_each_player_as_record_md_spells_it():
    """RECORD.md: players hold "color", "name", "area" and "neighborhood"; read back, the names are the table's."""
    setup = replay(blue_builds_everything()).setup
    doc = to_record(setup, [])
    assert doc["players"] == [{"color": "blue", "name": "Ann", "area": "lakes", "neighborhood": None},
                              {"color": "red", "name": "Ben", "area": "statues", "neighborhood": None}]
    assert [s.name for s in replay(doc).setup.seats] == ["Ann", "Ben"]
