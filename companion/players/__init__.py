"""The Pi's own players: pure like game/, fed only what their seat may see (views.seat_state), never a clock.

One entry point, `play`, so the table and `companion tournament` ask every level the same way. The levels' modules
are imported at the first `play`, not with this package: the server names the levels (PI_LEVELS) and hands the
thinking to the Pi's own process, so the searches and their tables never load in the server, and it answers its
first page that much sooner (benchmarks/bench_peer.py's start-up).
"""
from __future__ import annotations

import random
from functools import lru_cache
from typing import Callable

from companion.game import State, legal_actions
from companion.game.state import Action

LEVELS = ("random", "greedy", "easy", "normal", "strong", "mc", "strong0")
PI_LEVELS = ("easy", "normal", "strong")   # what a host may choose in the lobby


def _random(seen: State, color: str, rng: random.Random) -> Action:
    """Uniform over the legal actions, pass included: the floor every level must beat."""
    return rng.choice(list(legal_actions(seen)))


@lru_cache(maxsize=1)
def _players() -> dict[str, Callable[[State, str, random.Random], Action]]:
    from .greedy import easy, greedy
    from .montecarlo import mc, strong
    from .search import normal
    from .search import strong as strong0
    return {
        "random": _random, "greedy": greedy, "easy": easy,
        "normal": normal, "strong": strong,
        "mc": mc, "strong0": strong0,   # tournament levels: the Monte Carlo baseline and the strong of issue 32, frozen
    }


def play(seen: State, color: str, level: str, rng: random.Random) -> Action:
    """`color`'s decision at `level`, from `seen`: the state with every other seat's secret cards hidden."""
    if seen.to_act_color != color:
        raise ValueError(f"{color} is not to act")
    players = _players()
    if level not in players and not budgeted(level):
        raise ValueError(f"{level!r} is not a level: {', '.join(LEVELS)}")
    if level in players:
        return players[level](seen, color, rng)
    from . import montecarlo
    base, playouts = level.split("@")
    return montecarlo.with_playouts(base, int(playouts))(seen, color, rng)


def budgeted(level: str) -> bool:
    """A Monte Carlo level with its playouts a decision named, "mc@400" or "strong@24": the tournament's way to
    give two levels the same CPU, or the tests a quick game."""
    base, at, n = level.partition("@")
    return bool(at) and base in ("mc", "strong") and n.isdigit() and 0 < int(n) <= 100000
