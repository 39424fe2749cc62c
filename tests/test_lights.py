"""The turn LEDs' moment worked out from the game itself (Game.lights, issue 38), never picked out of a phone's view."""
from __future__ import annotations

import random

from companion import players
from companion.game.rules import apply, new_game
from companion.game.scoring import score
from companion.players.match import random_setup
from companion.model.game import Game


def finished_state(seed: int):
    rng = random.Random(seed)
    state = new_game(random_setup(3, "expert", rng))
    while not state.finished:
        state = apply(state, players.play(state, state.to_act_color, "greedy", rng))
    return state


def test_the_lobby_pulses_the_seated_and_the_board_phase_counts_as_lobby():
    game = Game(id="LOBBY", colors=("blue", "red", "white"), devices={"red": "d1", "blue": "d2"})
    assert game.lights() == ("lobby", ["blue", "red"], None, [], None)


def test_a_game_in_play_lights_whoever_is_to_act_and_a_call_just_won_blinks_its_winner():
    rng = random.Random(4)
    state = new_game(random_setup(2, "family", rng))
    game = Game(id="PLAY", colors=state.colors, devices={c: "d" + c for c in state.colors}, state=state)
    assert game.lights() == ("playing", list(state.colors), state.to_act_color, [], None)
    while state.last_call is None:
        state = apply(state, players.play(state, state.to_act_color, "greedy", rng))
    game.state = state
    phase, seated, to_act, winners, blink = game.lights(call_ended=True)
    assert (phase, to_act, winners, blink) == ("playing", state.to_act_color, [], state.last_call.player)
    assert game.lights()[4] is None              # no call just ended: nobody blinks


def test_a_finished_game_lights_its_winners_as_the_tally_names_them_and_an_abandoned_one_nothing():
    for seed in range(6):
        state = finished_state(seed)
        game = Game(id="DONE", colors=state.colors, devices={c: "d" + c for c in state.colors}, state=state)
        phase, _, to_act, winners, _ = game.lights()
        assert (phase, to_act) == ("finished", None)
        assert winners == score(state)["winners"] and winners
        game.abandoned = True
        assert game.lights() == ("finished", [], None, [], None)
