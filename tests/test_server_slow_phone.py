"""A phone that stops reading its socket (Wi-Fi gone, screen locked mid-frame) never holds up a bid."""
from __future__ import annotations

import base64
import os
import socket
import time

from server_helpers import Phone, create_game, seat_and_start


def stalled_socket(server, gid: str, phone: Phone) -> socket.socket:
    """A real WebSocket handshake, then silence: this client never reads another byte."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the server's buffer fills fast
    s.connect(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /api/games/{gid}/live HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: {server.origin}\r\nCookie: {phone.cookie_header()}\r\n\r\n"
               ).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def test_bids_go_through_while_a_phone_stops_reading(start_server):
    srv = start_server()
    host, red, white, gray = Phone(srv), Phone(srv), Phone(srv), Phone(srv)
    gid = create_game(host, ("blue", "red", "white", "gray"), seed=8)
    seat_and_start(gid, host, {"blue": host, "red": red, "white": white, "gray": gray})
    stalled = [stalled_socket(srv, gid, Phone(srv)) for _ in range(3)]
    listener = red.ws(gid)
    try:
        slowest = 0.0
        # Bid and undo, again and again: hundreds of views pile up for the silent phones.
        # 3000 views, over 6 MB for each silent phone: more than the kernel buffers for one socket
        # here (tcp_wmem allows 4 MB), so a send that waited for room would hang this loop.
        for i in range(1500):
            t = time.monotonic()
            r = host.post(f"/api/games/{gid}/actions", {"bid": "C01", "value": 1 + i % 13}, timeout=10)
            assert r.status == 200, r
            u = host.post(f"/api/games/{gid}/undo", timeout=10)
            assert u.status == 200, u
            slowest = max(slowest, time.monotonic() - t)
        final = host.view(gid)
        # The phone that does read still gets the newest view.
        assert listener.wait_seq(final["seq"], timeout=10)["seq"] == final["seq"]
        assert slowest < 5, f"a bid waited {slowest:.1f} s behind a phone that stopped reading"
    finally:
        for s in stalled:
            s.close()
