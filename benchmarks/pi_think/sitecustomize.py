"""For bench_pi_seat.py only (this folder is put on PYTHONPATH of the server it starts, so the Pi's own process loads it
too): the Pi's players first spend BENCH_THINK_MS of their thread's CPU on pure Python work, as a level's search holds
the interpreter, then decide as the level does. A stand-in for the strongest level's budget."""
from __future__ import annotations

import os
import time

THINK = float(os.environ.get("BENCH_THINK_MS", "0")) / 1000

if THINK > 0:
    from companion import players

    _real = players.play

    def play(seen, color, level, rng):
        end = time.thread_time() + THINK
        x = 0
        while time.thread_time() < end:
            for i in range(2000):
                x = (x * 31 + i) % 1000003
        return _real(seen, color, level, rng)

    players.play = play
