"""A record may write an automatic pass at either place RECORD.md allows, or leave it out: same state each way.

RECORD.md: "A player with no legal bid passes automatically: the record may include or leave out such a
pass. Where it is included, it may stand either right after the action that left that player without a
legal bid, or where the turn would have come to that player (as a table writes down "pass" when the player
says it); passes written at one point follow seating order, and this holds in the call that ends the game
too. At either place it is accepted; anywhere else it is an error."
"""
import json
import random

import pytest

from games import (BOARD, automatic_pass_points, build, random_game, random_setup, setup_for, white_12_red_13,
                   with_automatic_passes)

from companion.game.record import RecordError, replay, to_record
from companion.game.rules import new_game
from companion.game.state import Bid, Pass

TABLES = [(players, mode) for players in (2, 3, 4) for mode in ("family", "expert")]
SEEDS = range(8)


def game(players, mode, seed):
    """A seeded random complete game with no automatic pass written: (setup, actions, states)."""
    rng = random.Random(f"{players}-{mode}-{seed}")
    setup, actions, states = random_game(rng, random_setup(rng, players, mode))
    assert states[-1].finished
    return setup, actions, states


def places(seed):
    """Where each form writes an automatic pass: (name, place(call, seat))."""
    per_call, per_pass = random.Random(seed), random.Random(seed + 1)
    calls = {}
    return [
        ("left out", lambda call, seat: "out"),
        ("right after", lambda call, seat: "after"),
        ("where the turn reaches", lambda call, seat: "turn"),
        ("a mix per call", lambda call, seat: calls.setdefault(call, per_call.choice(("out", "after", "turn")))),
        ("a mix per pass", lambda call, seat: per_pass.choice(("out", "after", "turn"))),
    ]


def refusal(state, color):
    """The sentence the table says to `color` passing now, when it is not that player's turn (errors.py)."""
    if state.finished:
        return f"the game is over: {color} cannot act any more"
    if state.seat(color) in state.passed:
        return f"{color} passed and cannot act again in this call"
    return f"{color} cannot act now: it is {state.to_act_color}'s turn"


def replayed(setup, actions):
    return replay(json.loads(json.dumps(to_record(setup, actions))), BOARD)


@pytest.mark.parametrize("players,mode", TABLES)
def test_every_form_replays_to_the_state_of_the_game_without_written_passes(players, mode):
    differ = swapped = 0
    for seed in SEEDS:
        setup, actions, states = game(players, mode, seed)
        final = states[-1]
        records = {}
        for name, place in places(seed):
            records[name] = with_automatic_passes(actions, states, place)
            assert replayed(setup, records[name]) == final, name
        assert records["left out"] == actions
        differ += records["right after"] != records["where the turn reaches"]
        # The call that ends the game: its automatic passes may stand at either place too.
        last = automatic_pass_points(actions, states, lambda call, seat: "turn")[-1]
        assert replayed(setup, actions + [Pass(setup.colors[s]) for s in last]) == final
        # "passes written at one point follow seating order": two swapped, the one written second is refused.
        turn = places(seed)[2][1]
        for k, here in enumerate(automatic_pass_points(actions, states, turn)):
            if len(here) >= 2:
                record = with_automatic_passes(actions[:k + 1], states, turn)
                i = len(record) - len(here)
                record[i], record[i + 1] = record[i + 1], record[i]
                with pytest.raises(RecordError) as e:
                    replayed(setup, record)
                assert str(e.value) == f"action {i + 2}: {refusal(states[k + 1], record[i + 1].player)}"
                swapped += 1
                break
    if players > 2:  # two players: one pass at a time, and the turn comes to the other at once (one place)
        assert swapped >= len(SEEDS) // 2
        assert differ >= len(SEEDS) // 2, "the two places should differ in most games"


@pytest.mark.parametrize("players,mode", TABLES)
def test_a_single_written_pass_is_taken_at_either_place_and_refused_with_its_number_anywhere_else(players, mode):
    # "At either place it is accepted; anywhere else it is an error."
    setup, actions, states = game(players, mode, 100)
    after = automatic_pass_points(actions, states, lambda call, seat: "after")
    turn = automatic_pass_points(actions, states, lambda call, seat: "turn")
    taken = refused = 0
    for p in range(len(actions) + 1):
        state = states[p]
        allowed = set(after[p - 1]) | set(turn[p - 1]) if p else set()
        following = actions[p:p + 1]
        for seat, color in enumerate(setup.colors):
            if seat == state.to_act:
                continue  # the player to act: a pass of theirs is a real decision
            record = actions[:p] + [Pass(color)] + following
            if seat in allowed:
                assert replayed(setup, record) == states[p + len(following)]
                taken += 1
            else:
                # Also a pass by a player who still had a legal bid, and one written after a later decision.
                with pytest.raises(RecordError) as e:
                    replayed(setup, record)
                assert str(e.value) == f"action {p + 1}: {refusal(state, color)}"
                refused += 1
    assert taken and refused


def test_issue_11_white_12_red_13_written_the_tables_way():
    # Blue and Gray pass automatically after White's 12, White after Red's 13; a table writes
    # "Red bids 13; Blue: pass; Gray: pass; White: pass".
    setup, head, (gray_1, white_12, red_13), red_opens = white_12_red_13()
    blue, gray, white = Pass("blue"), Pass("gray"), Pass("white")
    plain = replayed(setup, head + [gray_1, white_12, red_13, red_opens])
    n = len(head) + 3  # red_13's number
    for calls in (
        [gray_1, white_12, red_13, blue, gray, white],          # where the turn reaches each of them
        [gray_1, white_12, blue, gray, red_13, white],          # right after the bid that left each without a bid
        [gray_1, white_12, gray, red_13, blue, white],          # Gray right after White's 12, Blue at its turn
        [gray_1, white_12, blue, red_13, gray],                 # Blue right after; Gray at its turn; White left out
        [gray_1, white_12, red_13, white],                      # only White's, the same at both places
    ):
        assert replayed(setup, head + calls + [red_opens]) == plain, calls
    refused = [
        # Out of seating order at one point.
        (f"action {n + 2}: blue cannot act now: it is red's turn", [gray_1, white_12, red_13, gray, blue]),
        (f"action {n + 1}: blue passed and cannot act again in this call", [gray_1, white_12, gray, blue]),
        # Written twice.
        (f"action {n + 2}: blue cannot act now: it is red's turn", [gray_1, white_12, blue, red_13, blue]),
        # After a later decision: Red opened the next call, and Blue is to act.
        (f"action {n + 2}: gray cannot act now: it is blue's turn", [gray_1, white_12, red_13, red_opens, gray]),
        # Red still had a legal bid (its 13): after Gray's 1 it is White's turn, not a pass Red owes.
        (f"action {n - 1}: red cannot act now: it is white's turn", [gray_1, Pass("red")]),
    ]
    for sentence, calls in refused:
        with pytest.raises(RecordError) as e:
            replayed(setup, head + calls)
        assert str(e.value) == sentence


def test_a_pass_owed_past_the_player_to_act_is_written_right_after_or_when_the_call_ends():
    # "a player who has no buildings left (or no buildings with a sufficient value) must pass":
    # White has built its 13, 12 and 11, so after Blue's 10 it passes automatically; Red is to act first.
    s = new_game(setup_for(("blue", "red", "white"), removed=("west",)))
    actions = []
    for color, nb, value in (("white", "C12", 13), ("white", "N07", 12), ("white", "E04", 11), ("blue", "C05", None)):
        s, more = build(s, color, nb, value)
        actions += more
    setup, blue_10 = s.setup, actions + [Bid("blue", "C04", 10)]
    plain = replayed(setup, blue_10 + [Pass("red")])
    assert plain.built["C04"].player == "blue"
    # Right after Blue's 10, or where the turn comes to White: after Red's pass, as the call ends.
    assert replayed(setup, blue_10 + [Pass("white"), Pass("red")]) == plain
    assert replayed(setup, blue_10 + [Pass("red"), Pass("white")]) == plain
    with pytest.raises(RecordError) as e:
        replayed(setup, blue_10 + [Pass("red"), Pass("white"), Pass("white")])
    assert str(e.value) == f"action {len(blue_10) + 3}: white cannot act now: it is blue's turn"
    with pytest.raises(RecordError) as e:
        replayed(setup, blue_10 + [Pass("red"), Bid("blue", "C01", 1), Pass("white")])
    assert str(e.value) == f"action {len(blue_10) + 3}: white cannot act now: it is red's turn"
