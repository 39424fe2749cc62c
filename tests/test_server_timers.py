"""Presence and the host's absence are timed on one thread: socket churn leaves the thread count flat (issue 22 item 3)."""
from __future__ import annotations

import os
import time

from server_helpers import Phone, create_game


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def test_a_seat_toggling_its_socket_while_the_host_is_away_starts_no_threads(server):
    """Each open and close shows the seat online, then offline; with the host away each also arms the
    'host gone two minutes' notice. 300 toggles once took 600 timer threads that lived two minutes."""
    host, red = Phone(server, source="127.0.0.41"), Phone(server, source="127.0.0.42")
    gid = create_game(host, ("blue", "red"), seed=22)
    assert red.post(f"/api/games/{gid}/seats/red", {"name": "Red"}).status == 200
    warm = red.ws(gid)   # the live loop's thread and the timers' thread exist from here on
    warm.wait_seq(0)
    warm.close()
    time.sleep(0.5)
    pid = server.worker_pid()
    before = threads(pid)
    for _ in range(300):
        s = red.ws(gid)
        s.wait_seq(0)
        s.close()
    time.sleep(1)
    after = threads(pid)
    print(f"\nserver threads: {before} before 300 socket toggles, {after} after")
    assert after <= before + 2, (before, after)
    # The seat is shown offline once its last socket closed: the coalesced jobs still ran.
    deadline = time.monotonic() + 10
    while "red" not in host.view(gid).get("offline", ()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "red" in host.view(gid)["offline"]
