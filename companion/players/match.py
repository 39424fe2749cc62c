"""One tournament game, pure: a random table from a seed, each seat asked through `decide` with only what it may see."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Sequence

from companion.game import load_board
from companion.game.rules import apply, legal_actions, new_game
from companion.game.scoring import score
from companion.game.setup import deal, make_setup, random_layout
from companion.game.board import PERIPHERAL
from companion.game.state import COLORS, Action, Seat, Setup, State

from .seen import hide

Decide = Callable[[State, str, str, random.Random], Action]


@dataclass
class GameResult:
    """Who sat where, the final scores, and the illegal actions each seat tried (each replaced by a random legal one)."""

    levels: tuple[str, ...]      # by seat, in setup order
    scores: dict
    illegal: list[int]


def random_setup(players: int, mode: str, rng: random.Random) -> Setup:
    """A table as the rulebook sets it: districts out for 2 or 3 players, random tokens, cards dealt."""
    board = load_board()
    if players == 4:
        removed: frozenset[str] = frozenset()
    elif players == 3:
        removed = frozenset({rng.choice(PERIPHERAL)})
    else:
        removed = rng.choice(sorted(board.district_pairs, key=sorted))
    tokens = random_layout(players, removed, rng, board)
    seats = [Seat(c, c.title(), a, k) for c, (a, k) in zip(COLORS[:players], deal(mode, players, rng))]
    return make_setup(mode, seats, removed, tokens, board)


def play_game(levels: Sequence[str], mode: str, seed: int, decide: Decide) -> GameResult:
    """A whole game: seat i plays levels[i]; an illegal action is counted and replaced by a random legal one."""
    rng = random.Random(seed)
    setup = random_setup(len(levels), mode, rng)
    rngs = [random.Random(f"{seed}/{i}") for i in range(len(levels))]
    board = load_board()
    state = new_game(setup)
    illegal = [0] * len(levels)
    while not state.finished:
        p = state.to_act
        color = setup.seats[p].color
        legal = legal_actions(state, board)
        try:
            action = decide(hide(state, color), color, levels[p], rngs[p])
            ok = action in legal
        except Exception:  # a crashing player counts as an illegal action, never as a crashed tournament
            ok = False
        if not ok:
            illegal[p] += 1
            action = rng.choice(list(legal))
        state = apply(state, action, board)
    return GameResult(tuple(levels), score(state, board), illegal)
