"""Issue 41 items 1 and 5, the pure part: a finished game's replay (companion/game/replay.py) and its awards
(companion/game/awards.py), checked against the rules engine's own states for seeded random games of both modes,
with automatic passes written into the record and left out."""
from __future__ import annotations

import json
import random

import pytest

from companion.game.awards import awards
from companion.game.record import to_record
from companion.game.replay import steps
from companion.game.scoring import score
from companion.game.state import Bid
from games import BOARD, random_game, random_setup

SEEDS = range(6)


def game(seed):
    rng = random.Random(seed)
    setup = random_setup(rng, players=(2, 3, 4)[seed % 3], mode=("family", "expert")[seed % 2])
    return random_game(rng, setup, record_auto=0.5 if seed % 2 else 0.0)


def fold(replay: dict, upto: int) -> dict:
    """The board after step `upto` (1-based) from the replay alone, as static/replay.js builds it: what the page
    shows must follow from the response without the rules."""
    built, call, passed, tokens = {}, [], set(), dict(replay["tokens"])
    subway = arch = None
    for step in replay["steps"][:upto]:
        if step.get("written"):
            continue
        a = step["action"]
        if "bid" in a:
            call.append((step["color"], a["bid"], a["value"]))
        else:
            passed.add(step["color"])
        passed |= set(step.get("auto", []))
        e = step.get("ended")
        if e:
            built[e["neighborhood"]] = (e["color"], e["value"])
            tokens.pop(e["neighborhood"], None)
            subway = e["subway_card"] or subway
            arch = e["archaeological_card"] or arch
            call, passed = [], set()
    return {"built": built, "call": call, "passed": passed, "tokens": tokens, "subway": subway, "arch": arch}


@pytest.mark.parametrize("seed", SEEDS)
def test_each_step_is_the_state_the_rules_engine_reaches_by_replaying_the_record(seed):
    setup, actions, states = game(seed)
    doc = json.loads(json.dumps(to_record(setup, actions)))
    got = json.loads(json.dumps(steps(doc, BOARD)))
    assert len(got["steps"]) == len(doc["actions"]) == len(actions)
    calls = 0
    for i, (step, action, before, after) in enumerate(zip(got["steps"], actions, states, states[1:]), 1):
        assert step["seq"] == i and step["color"] == action.player
        assert step["action"] == ({"bid": action.neighborhood, "value": action.value} if isinstance(action, Bid)
                                  else {"pass": True})
        assert step["scores"] == {c: p["total"] for c, p in score(after, BOARD)["players"].items()}
        assert step.get("written", False) == (after is before)
        if after is not before and not before.call:
            calls += 1
        assert step["call"] == calls
        board = fold(got, i)
        assert board["built"] == {nb: (b.player, b.value) for nb, b in after.built.items()}
        assert board["call"] == [(b.player, b.neighborhood, b.value) for b in after.call]
        assert board["tokens"] == dict(after.tokens)
        assert board["subway"] == (None if after.subway_card is None else after.colors[after.subway_card])
        assert board["arch"] == (None if after.archaeological_card is None else
                                 after.colors[after.archaeological_card])
        if after.call:
            assert board["passed"] == {after.colors[s] for s in after.passed}
    assert calls == sum(states[-1].built_count)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_last_steps_scores_are_the_tally(seed):
    setup, actions, states = game(seed)
    assert states[-1].finished
    got = steps(to_record(setup, actions), BOARD)
    tally = score(states[-1], BOARD)
    assert got["steps"][-1]["scores"] == {c: p["total"] for c, p in tally["players"].items()}
    assert [p["area"] for p in got["players"]] == [s.area for s in setup.seats]   # every card shown: it is over


@pytest.mark.parametrize("seed", SEEDS)
def test_awards_count_what_the_states_say_and_are_the_same_every_time(seed):
    setup, actions, states = game(seed)
    doc = to_record(setup, actions)
    got = awards(doc, BOARD)
    assert got == awards(json.loads(json.dumps(doc)), BOARD) == steps(doc, BOARD)["awards"]
    final = states[-1]
    built = {c: final.built_count[i] for i, c in enumerate(setup.colors)}
    tokens = {c: sum(final.collected[i]) for i, c in enumerate(setup.colors)}
    outbid = dict.fromkeys(setup.colors, 0)
    for action, before in zip(actions, states):
        if isinstance(action, Bid) and before.call:
            outbid[before.call[-1].player] += 1
    figures = {"builder": built, "outbid": outbid, "collector": tokens}
    assert [a["award"] for a in got] == [k for k in ("builder", "outbid", "collector") if max(figures[k].values())]
    for a in got:
        assert set(a) == {"award", "colour", "value"}
        assert a["value"] == max(figures[a["award"]].values()) == figures[a["award"]][a["colour"]]


def test_a_tied_award_goes_to_the_player_who_reached_the_figure_first():
    # Two calls: blue builds, then red builds; both have built once: blue got there first.
    for seed in range(40):
        setup, actions, states = random_game(random.Random(seed), random_setup(random.Random(seed), players=2),
                                             max_actions=40)
        built = [s.built_count for s in states]
        final = built[-1]
        if final[0] == final[1] and final[0] > 0:
            first = {i: next(k for k, b in enumerate(built) if b[i] == final[i]) for i in (0, 1)}
            want = setup.colors[min((0, 1), key=lambda i: (first[i], i))]
            got = awards(to_record(setup, actions), BOARD)
            assert got[0]["award"] == "builder" and got[0]["colour"] == want and got[0]["value"] == final[0]
            return
    pytest.fail("no seed gave a tie on buildings")
