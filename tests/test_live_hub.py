"""A device's socket evicted by a newer one between its join and its hand-over to the live loop is closed once it is
handed over (companion/live/hub.py): a phone that reloads again and again keeps only its newest sockets, however
slowly the route gets from the join to the hand-over."""
from __future__ import annotations

import socket

from companion.live.hub import Hub


def test_a_socket_evicted_before_its_hand_over_is_closed_once_handed_over():
    hub = Hub(per_device=1)
    first = hub.join("g1", "phone", "10.0.0.2")
    second = hub.join("g1", "phone", "10.0.0.2")     # evicts the first, which has no socket yet
    ours, theirs = socket.socketpair()
    kept, phone = socket.socketpair()
    try:
        live = hub.attach(first, ours, '{"seq": 0}')
        theirs.settimeout(5)
        got = b""
        while b"\x88" not in got:                     # a close frame (opcode 8, FIN) after the first view
            chunk = theirs.recv(4096)
            assert chunk, f"the connection ended without a close frame: {got!r}"
            got += chunk
        assert (1008).to_bytes(2, "big") in got[got.index(b"\x88"):], got   # "a newer connection from this device"
        assert live.closed.wait(5), "the loop drops the evicted socket"
        newest = hub.attach(second, kept, '{"seq": 0}')
        assert hub.live("g1") == {"phone"} and not newest.closed.is_set()
    finally:
        for s in (ours, theirs, kept, phone):
            s.close()
