"""The Pi's thinking process (companion/think.py): jobs run in a child interpreter at a low priority, a job's own
failure comes back to its caller, a child that dies is started again, and a seat's view crosses the pipe whole."""
from __future__ import annotations

import os
import random

import pytest

from companion import think
from companion.game.rules import apply, legal_actions, new_game
from companion.players.match import random_setup
from companion.players.seen import hide


@pytest.fixture
def child():
    p = think.Process()
    yield p
    if p._child is not None:
        p._child.kill()
        p._child.wait()


def test_a_job_runs_in_the_child_below_the_servers_priority(child):
    pid = child.run(os.getpid)
    assert pid != os.getpid()
    assert child.run(os.getpriority, os.PRIO_PROCESS, 0) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + think.NICE)


def test_a_jobs_failure_is_raised_to_its_caller_and_the_child_goes_on(child):
    with pytest.raises(ValueError, match="invalid literal"):
        child.run(int, "not a number")
    assert child.run(int, "12") == 12


def test_a_child_that_died_is_started_again_at_the_next_job(child):
    first = child.run(os.getpid)
    with pytest.raises(think.Gone) as gone:   # a job that ends its process each time: tried twice, then given up
        child.run(os._exit, 1)
    assert not gone.value.cannot_start
    second = child.run(os.getpid)
    assert second not in (first, os.getpid())
    os.kill(second, 9)   # and between jobs
    assert child.run(os.getpid) not in (first, second, os.getpid())


def test_the_pis_move_from_a_seats_view_is_the_same_in_the_child_as_here(child):
    rng = random.Random(4)
    st = new_game(random_setup(3, "expert", rng))
    for _ in range(7):
        st = apply(st, sorted(legal_actions(st), key=repr)[0])
    color = st.to_act_color
    seen = hide(st, color)
    for level in ("easy", "normal", "strong@16"):
        assert child.run(think.decide, seen, color, level, "seed") == think.decide(seen, color, level, "seed")


def test_a_server_that_stops_during_a_job_leaves_the_child_ending_quietly():
    """The server stops (its end of the pipes closed) while the child thinks: the child ends at once, with nothing
    in the log (a BrokenPipeError's traceback reached the server's log at a clean stop)."""
    import pickle
    import subprocess
    import sys
    import time
    child = subprocess.Popen([sys.executable, "-m", "companion.think"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pickle.dump(("time", "sleep", (0.5,)), child.stdin)
    child.stdin.flush()
    time.sleep(0.1)
    child.stdout.close()
    child.stdin.close()
    assert child.wait(timeout=10) == 0
    assert child.stderr.read() == b""


def test_the_server_never_loads_the_searches_only_the_pis_process_does(tmp_path):
    """The server names the levels and hands every decision, review and hint to the Pi's process: the players'
    searches (montecarlo, search, fast, appraise) are not imported with it, so its start and memory stay small."""
    import subprocess
    import sys
    code = ("import sys; from companion import create_app; "
            f"create_app({{'DB': {str(tmp_path / 'db.sqlite3')!r}, 'TESTING': True, 'LEDS': False}}); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('companion.players'))))")
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert not {"companion.players.montecarlo", "companion.players.search", "companion.players.fast",
                "companion.players.appraise", "companion.players.greedy"} & set(loaded), loaded
    here = subprocess.run(
        [sys.executable, "-c", "import sys, random; from companion import players; from companion.players.match import "
         "random_setup; from companion.game.rules import new_game; s = new_game(random_setup(2, 'family', "
         "random.Random(1))); players.play(s, s.to_act_color, 'strong@4', random.Random(1)); "
         "print('companion.players.montecarlo' in sys.modules)"], check=True, capture_output=True, text=True)
    assert here.stdout.strip() == "True"   # the first play loads them


def test_a_child_started_from_a_lowered_thread_thinks_nice_steps_below_the_server_not_below_that_thread(child):
    """The Pi's thread lowers itself before it starts the child (pi_seat.PiThinker._run): the child inherits the
    thread's niceness, so it must count its own from the server's, or it would sink to the lowest priority."""
    import threading
    server = os.getpriority(os.PRIO_PROCESS, 0)
    seen = []

    def lowered_thread():
        think.lower()
        seen.append(child.run(os.getpriority, os.PRIO_PROCESS, 0))

    t = threading.Thread(target=lowered_thread)
    t.start()
    t.join()
    assert seen == [min(19, server + think.NICE)]
    assert os.getpriority(os.PRIO_PROCESS, 0) == server   # the server's own thread untouched
