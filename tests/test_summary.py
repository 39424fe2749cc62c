"""The log line of each decision and the reason a call ended (companion.game.summary), through the real rules."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.game.rules import apply, new_game
from companion.game.state import Bid, Pass
from companion.game.summary import ALL_PASSED, NOBODY_COULD, THIRTEEN, decision
from games import BOARD, layout_with, random_game, setup_for, white_12_red_13


def test_an_opening_13_ends_the_call_because_nobody_can_outbid_a_13():
    # Rulebook: the call ends when every other player has passed; nobody holds more than 13.
    state = new_game(setup_for())
    after = apply(state, Bid("blue", "C01", 13), BOARD)
    line = decision(state, Bid("blue", "C01", 13), after)
    assert line["kind"] == "bid" and line["ended"]["reason"] == THIRTEEN
    assert line["ended"]["passed"] == ["red", "white", "gray"] and line["auto"] == ["red", "white", "gray"]


def test_everyone_passing_of_their_own_accord_is_all_passed():
    state = new_game(setup_for())
    actions = [Bid("blue", "C01", 1), Pass("red"), Pass("white"), Pass("gray")]
    for a in actions[:-1]:
        state = apply(state, a, BOARD)
    after = apply(state, actions[-1], BOARD)
    line = decision(state, actions[-1], after)
    assert line == {"color": "gray", "kind": "pass", "auto": [], "ended": line["ended"]}
    e = line["ended"]
    assert (e["color"], e["neighborhood"], e["value"], e["reason"]) == ("blue", "C01", 1, ALL_PASSED)
    assert e["bids"] == [{"color": "blue", "neighborhood": "C01", "value": 1}]
    assert e["passed"] == ["red", "white", "gray"]


def test_a_12_nobody_else_can_beat_ends_with_nobody_could():
    setup, head, call, _ = white_12_red_13()
    state = new_game(setup)
    for a in head:
        state = apply(state, a, BOARD)
    lines = []
    for a in call:
        after = apply(state, a, BOARD)
        lines.append(decision(state, a, after))
        state = after
    assert "ended" not in lines[0] and "ended" not in lines[1]
    assert set(lines[1]["auto"]) == {"blue", "gray"}
    assert lines[2]["ended"]["reason"] == THIRTEEN
    assert [b["value"] for b in lines[2]["ended"]["bids"]] == [1, 12, 13]


@pytest.mark.parametrize("seed", range(40))
def test_every_call_end_in_random_games_names_the_builder_and_everyone_else_passed(seed):
    setup, actions, states = random_game(random.Random(seed))
    for before, action, after in zip(states, actions, states[1:]):
        line = decision(before, action, after)
        assert line["color"] == action.player
        if after.call:
            assert "ended" not in line
            continue
        e = line["ended"]
        assert (e["color"], e["neighborhood"], e["value"]) == (after.last_call.player, after.last_call.neighborhood,
                                                              after.last_call.value)
        assert e["bids"][-1]["color"] == e["color"] and e["bids"][-1]["value"] == e["value"]
        assert set(e["passed"]) == set(setup.colors) - {e["color"]}
        if e["value"] == 13:
            assert e["reason"] == THIRTEEN
        elif isinstance(action, Pass) and not after.auto_passed:
            assert e["reason"] == ALL_PASSED
        else:
            assert e["reason"] == NOBODY_COULD
        assert e["finished"] == after.finished


@pytest.mark.parametrize("seed", range(30))
def test_the_expert_tally_names_as_many_disjoint_groups_of_the_players_buildings_as_it_counts(seed):
    # "Each building counts for one group only" (expert area cards): the named groups are disjoint and scored.
    from companion.game.scoring import explain
    setup, actions, states = random_game(random.Random(1000 + seed), setup=None)
    end = states[-1]
    if end.setup.mode != "expert":
        setup, actions, states = random_game(random.Random(1000 + seed), setup=_expert(seed))
        end = states[-1]
    ex = explain(end, BOARD)
    for seat in end.setup.seats:
        d = ex["details"][seat.color]
        groups = d["area_group_list"]
        assert len(groups) == d["area_groups"]
        mine = {nb for nb, b in end.built.items() if b.player == seat.color}
        seen = [nb for g in groups for nb in g]
        assert len(seen) == len(set(seen)) or seat.area == "districts"
        assert set(seen) <= mine
        assert all(len(g) == {"bridges": 2, "statues": 3, "lakes": 3, "chains": 3}.get(seat.area, len(g)) for g in groups)
        if seat.area == "districts":
            assert all(len(g) >= 3 for g in groups)


def _expert(seed):
    from games import random_setup
    return random_setup(random.Random(seed), mode="expert")


def test_the_winner_takes_back_their_own_earlier_bids_too():
    # Issue 20: 2-player Expert, Hana (blue) 2 on S02, Rui (red) 3 on C13, Hana 4 on C08, Rui passes. Rulebook, End of
    # the call for proposal: "All the players take their unbuilt buildings (that is, those with a visible number)
    # back." and "Remove all the other buildings used in the course of this call for proposal from the board."
    state = new_game(setup_for(("blue", "red"), mode="expert", removed=("north", "east")))
    actions = [Bid("blue", "S02", 2), Bid("red", "C13", 3), Bid("blue", "C08", 4), Pass("red")]
    for a in actions[:-1]:
        state = apply(state, a, BOARD)
    after = apply(state, actions[-1], BOARD)
    e = decision(state, actions[-1], after)["ended"]
    assert (e["color"], e["neighborhood"], e["value"]) == ("blue", "C08", 4)
    assert e["back"] == [{"color": "blue", "neighborhood": "S02", "value": 2},
                         {"color": "red", "neighborhood": "C13", "value": 3}]
    assert 2 in after.hands[0] and 3 in after.hands[1] and "S02" not in after.built


def test_the_take_backs_of_thousands_of_random_calls_are_exactly_what_the_rules_return_to_hands():
    """Every call end of 150 random games (2-4 players, both modes): the buildings the summary says go back are the
    values the rules put back into each hand and the neighborhoods left empty, and the built one is the only
    building added; the winner's own earlier bids are among them (and that case does occur)."""
    calls = own = 0
    for seed in range(150):
        setup, actions, states = random_game(random.Random(1000 + seed))
        for before, action, after in zip(states, actions, states[1:]):
            if after.call or before is after:
                continue
            e = decision(before, action, after)["ended"]
            calls += 1
            placed = list(before.call) + ([action] if isinstance(action, Bid) else [])
            new = set(after.built) - set(before.built)
            assert new == {e["neighborhood"]}
            b = after.built[e["neighborhood"]]
            assert (b.player, b.value) == (e["color"], e["value"])
            assert {x["neighborhood"] for x in e["back"]} == {p.neighborhood for p in placed} - new
            for i, seat in enumerate(setup.seats):
                hand = Counter(before.hands[i])
                if isinstance(action, Bid) and action.player == seat.color:
                    hand[action.value] -= 1       # placed by this very decision
                named = Counter(x["value"] for x in e["back"] if x["color"] == seat.color)
                assert Counter(after.hands[i]) == hand + named, (seed, seat.color, e)
            own += any(x["color"] == e["color"] for x in e["back"])
    print(f"{calls} calls, {own} with the winner taking back their own earlier bids")
    assert calls > 3000 and own > 100, (calls, own)


def test_each_line_says_the_bid_and_a_call_says_its_token_and_where_the_special_cards_went():
    """"both special cards (the subway card and the archaeological site card) may come into play and may change
    hands": the call's line names the token taken, the card taken and from whom (nobody: it lay beside the board)."""
    tokens = layout_with(4, fixed={"C10": "subway", "C04": "archaeological", "C03": "archaeological"}, seed=3)
    state = new_game(setup_for(("blue", "red", "white", "gray"), tokens=tokens))
    lines = []
    for action in (Bid("blue", "C10", 3), Pass("red"), Pass("white"), Pass("gray"),
                   Bid("blue", "C04", 4), Pass("red"), Pass("white"), Pass("gray"), Bid("blue", "C01", 5),
                   Bid("red", "C03", 6), Pass("white"), Pass("gray"), Pass("blue")):
        after = apply(state, action, BOARD)
        lines.append(decision(state, action, after))
        state = after
    assert lines[0] == {"color": "blue", "kind": "bid", "neighborhood": "C10", "value": 3, "auto": []}
    assert lines[1] == {"color": "red", "kind": "pass", "auto": []}
    everyone_else = {"reason": ALL_PASSED, "passed": ["red", "white", "gray"], "back": [], "finished": False}
    assert lines[3]["ended"] == {
        "color": "blue", "neighborhood": "C10", "value": 3, "token": "subway", "subway_card": "blue",
        "archaeological_card": None, "subway_from": None, "archaeological_from": None,
        "bids": [{"color": "blue", "neighborhood": "C10", "value": 3}], **everyone_else}
    assert lines[7]["ended"] == {
        "color": "blue", "neighborhood": "C04", "value": 4, "token": "archaeological", "subway_card": None,
        "archaeological_card": "blue", "subway_from": "blue", "archaeological_from": None,
        "bids": [{"color": "blue", "neighborhood": "C04", "value": 4}], **everyone_else}
    assert lines[8] == {"color": "blue", "kind": "bid", "neighborhood": "C01", "value": 5, "auto": []}
    # the archaeological site card goes to the last player to take an archaeological token: from Blue to Red
    assert lines[12]["ended"] == {
        "color": "red", "neighborhood": "C03", "value": 6, "token": "archaeological", "subway_card": None,
        "archaeological_card": "red", "subway_from": "blue", "archaeological_from": "blue", "reason": ALL_PASSED,
        "bids": [{"color": "blue", "neighborhood": "C01", "value": 5},
                 {"color": "red", "neighborhood": "C03", "value": 6}],
        "back": [{"color": "blue", "neighborhood": "C01", "value": 5}], "passed": ["blue", "white", "gray"],
        "finished": False}
