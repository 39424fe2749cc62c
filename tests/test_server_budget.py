"""Whatever one address opens, the seated phones keep being answered (issue 14; issue 22: the budget is
global, slow clients cost no thread, known devices are never evicted for strangers).

A real `companion serve` on 127.0.0.1; every client binds its own loopback source address, so the
server sees an attacker at 127.0.0.2 and four phones at 127.0.0.11-14 as different devices."""
from __future__ import annotations

import base64
import http.client
import json
import os
import random
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from companion.limits import SOCKETS_PER_ADDRESS
from companion.limits import KEEPALIVE, MAX_CONNECTIONS, REQUEST_DEADLINE
from conftest import FAST
from server_helpers import LiveServer, Phone, choose, create_game, seat_and_start

ATTACKER = "127.0.0.2"
COLORS = ("blue", "red", "white", "gray")


def _held_once(pid: int, port: int, address: str) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ip = socket.inet_aton(address)[::-1].hex().upper()
    held = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], fields[9]
        if int(local.split(":")[1], 16) == port and remote.split(":")[0] == ip and inode in inodes:
            held.add(inode)
    return held


def held_from(pid: int, port: int, address: str) -> int:
    """Connections from `address` to `port` that process `pid` holds open: a file descriptor of its own
    in two looks 0.2 s apart (one just accepted to be reset at once is not held; nor is one still
    waiting in the listen queue)."""
    first = _held_once(pid, port, address)
    time.sleep(0.2)
    return len(first & _held_once(pid, port, address))


def threads_on_sockets(pid: int) -> list[int]:
    """The worker's threads blocked in a socket read or write (the kernel's wait_woken)."""
    stuck = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if Path(f"/proc/{pid}/task/{tid}/wchan").read_text().strip() == "wait_woken":
                stuck.append(int(tid))
        except OSError:
            pass
    return stuck


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


class Attacker:
    """200 connections from one address, reopened as the server drops them: live sockets that answer
    nothing, live sockets that stop reading, headers and bodies sent a byte at a time, pipelined
    requests whose answers are never read, and silent TCP connections."""

    KINDS = ("ws_open", "ws_stalled", "slow_headers", "slow_body", "unread_answers", "idle")

    def __init__(self, server: LiveServer, gid: str, per_kind: int = 40):
        self.server = server
        self.worker = server.worker_pid()
        self.gid = gid
        self.slots = [(kind, None) for kind in self.KINDS for _ in range(per_kind)]
        self.opened = 0
        self.refused = 0
        self.stop = threading.Event()
        self.freeze = threading.Event()     # stop reopening; what is open stays open and drips on
        self.peak_held = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _connect(self, kind: str) -> socket.socket:
        s = socket.socket()
        if kind == "ws_stalled":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((ATTACKER, 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", self.server.port))
        host = f"127.0.0.1:{self.server.port}"
        if kind in ("ws_open", "ws_stalled"):
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall((f"GET /api/games/{self.gid}/live HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                       f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                       f"Origin: {self.server.origin}\r\n\r\n").encode())
        elif kind == "slow_headers":
            s.sendall(b"G")
        elif kind == "slow_body":
            s.sendall((f"POST /api/games/{self.gid}/actions HTTP/1.1\r\nHost: {host}\r\n"
                       f"Origin: {self.server.origin}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: 10000\r\n\r\n{{").encode())
        elif kind == "unread_answers":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(f"GET /api/board HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() * 300)
        s.setblocking(False)
        self.opened += 1
        return s

    @staticmethod
    def _alive(s: socket.socket) -> bool:
        try:
            return s.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            return True
        except OSError:
            return False

    def _drip(self, kind: str, s: socket.socket) -> bool:
        try:
            if kind == "slow_headers":
                s.send(b"E")      # "GEEEE...": a request line that never ends
            elif kind == "slow_body":
                s.send(b" ")
        except BlockingIOError:
            pass
        except OSError:
            return False
        return kind in ("ws_stalled", "unread_answers") or self._alive(s)

    def _run(self) -> None:
        while not self.stop.is_set():
            self.peak_held = max(self.peak_held, held_from(self.worker, self.server.port, ATTACKER))
            for i, (kind, s) in enumerate(self.slots):
                if s is not None and self._drip(kind, s):
                    continue
                if s is not None:
                    s.close()
                    self.slots[i] = (kind, None)
                    self.refused += 1
                if not self.freeze.is_set():
                    try:
                        self.slots[i] = (kind, self._connect(kind))
                    except OSError:
                        pass
            self.stop.wait(0.5)

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        for _, s in self.slots:
            if s is not None:
                s.close()


def test_one_address_cannot_stop_the_table(start_server):
    srv = start_server()
    phones = {c: Phone(srv, source=f"127.0.0.{11 + i}") for i, c in enumerate(COLORS)}
    host = phones["blue"]
    gid = create_game(host, COLORS, seed=14)
    seat_and_start(gid, host, phones)
    socks = {c: p.ws(gid) for c, p in phones.items()}
    worker = srv.worker_pid()
    rss_before = rss_kb(worker)

    attacker = Attacker(srv, gid)
    attacker.start()
    try:
        time.sleep(2)   # the 200 are open (or were refused) before the first bid
        rng = random.Random(14)
        slowest, latencies = 0.0, []
        t_end = time.monotonic() + REQUEST_DEADLINE + 5   # past the deadline: cut requests come back
        while time.monotonic() < t_end:
            view = host.view(gid)
            if view["phase"] != "playing":
                break
            color = view["to_act"]
            mine = phones[color].view(gid)
            move = choose(mine, rng)
            t0 = time.monotonic()
            r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]), timeout=30)
            assert r.status == 200, r
            for s in socks.values():
                s.wait_seq(r.json["seq"], timeout=30)
            latencies.append(time.monotonic() - t0)
            time.sleep(0.2)
        assert len(latencies) >= 10, latencies
        slowest = max(latencies)
        held = attacker.peak_held
        during = len(threads_on_sockets(worker))
        print(f"\n{attacker.opened} connections opened from {ATTACKER}, {attacker.refused} dropped by the "
              f"server; at most {held} held at once; {len(latencies)} bids under attack: median "
              f"{sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms, max {slowest * 1000:.0f} ms; worker RSS "
              f"{rss_before / 1024:.1f} MB before, {rss_kb(worker) / 1024:.1f} MB during")
        # The issue asks for 1 s; the bound here is generous so a loaded machine does not fail it
        # (without the budget these bids were never answered while the attack lasted).
        assert slowest < 5, f"a bid took {slowest:.1f} s to be answered and broadcast under attack"
        assert held <= MAX_CONNECTIONS + SOCKETS_PER_ADDRESS, held
        # Slow headers, slow bodies, silence and unread answers wait in the event loop: no thread reads them.
        assert during == 0, f"{during} server threads blocked on the attacker's sockets"

        # Afterwards: the attacker stops reopening but keeps dripping on what is open. Every request
        # is past its deadline soon after, and no server thread waits on any socket.
        attacker.freeze.set()
        deadline = time.monotonic() + REQUEST_DEADLINE + 10
        while threads_on_sockets(worker) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert threads_on_sockets(worker) == [], "server threads still held by the attacker's sockets"
        # And the capacity is all there: 32 fresh requests from 8 other addresses at once, all answered.
        fresh = [Phone(srv, source=f"127.0.0.{30 + i // 4}") for i in range(32)]
        with ThreadPoolExecutor(32) as pool:
            replies = list(pool.map(lambda p: p.get(f"/api/games/{gid}", timeout=30), fresh))
        assert [r.status for r in replies] == [200] * 32
        for s in socks.values():   # the phones' own sockets lived through it all
            assert not s.closed
        final = host.view(gid)
        for s in socks.values():
            assert s.wait_seq(final["seq"])["seq"] == final["seq"]
        print(f"worker RSS after: {rss_kb(worker) / 1024:.1f} MB")
    finally:
        attacker.close()
        for p in phones.values():
            p.close()


def test_a_device_keeps_its_newest_sockets_and_an_address_is_capped(start_server):
    """A phone that reloads again and again always gets in (its oldest socket is closed); fresh cookies
    from one address stop at the address's cap with a sentence; another address is not affected."""
    srv = start_server()
    host = Phone(srv, source="127.0.0.21")
    gid = create_game(host, ("blue", "red"), seed=3)
    reloads = [host.ws(gid) for _ in range(6)]
    for s in reloads[-3:]:
        assert s.wait_seq(0)["seq"] >= 0
    for s in reloads[:3]:
        s.thread.join(timeout=10)
        assert s.closed, "the oldest sockets of a device are closed when it opens more than 3"
    assert not any(s.closed for s in reloads[-3:])

    strangers = [Phone(srv, source="127.0.0.22") for _ in range(SOCKETS_PER_ADDRESS + 2)]
    opened, refused = [], []
    for p in strangers:
        try:
            opened.append(p.ws(gid))
        except Exception as e:   # simple_websocket.ConnectionError with the HTTP status
            refused.append(getattr(e, "status_code", e))
    assert len(opened) == SOCKETS_PER_ADDRESS and refused == [429, 429]
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=("127.0.0.22", 0))
    c.request("GET", f"/api/games/{gid}/live", headers={
        "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": base64.b64encode(b"k" * 16).decode(), "Origin": srv.origin})
    r = c.getresponse()
    assert r.status == 429 and json.loads(r.read())["code"] == "too_many_sockets"
    c.close()
    other = Phone(srv, source="127.0.0.23").ws(gid)
    assert other.wait_seq(0)["seq"] >= 0
    for s in opened + reloads + [other]:
        s.close()


def test_a_kept_alive_connection_is_told_how_long_it_is_kept_and_is_kept_that_long(start_server):
    """RFC 9110's Keep-Alive hint: a client that reuses the connection only within it never sends a request
    into our closing (seen in CI: a POST on a connection the server was closing came back as "socket hang up")."""
    srv = start_server()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    conn.request("GET", "/api/games/current")
    first = conn.getresponse()
    first.read()
    assert first.getheader("Keep-Alive") == f"timeout={int(KEEPALIVE)}"
    time.sleep(KEEPALIVE / 2)
    conn.request("GET", "/api/games/current")
    again = conn.getresponse()
    again.read()
    assert again.status == 200 and not again.will_close
    sock = conn.sock
    time.sleep(KEEPALIVE + 3)
    sock.settimeout(10)
    assert sock.recv(1) == b"", "closed once the hint's time is up"
    conn.close()


def test_a_slow_drip_does_not_beat_the_deadline_and_silence_holds_no_thread(start_server):
    """A byte every half second is never enough: headers and body have one deadline for the whole
    request, not a timeout per read. A silent connection waits without a thread and is closed too."""
    srv = start_server()
    worker = srv.worker_pid()
    opened = time.monotonic()
    conns = {}
    for kind, first in (("idle", b""), ("headers", b"GET /api/games/current HTTP/1.1\r\nX-Drip: "),
                        ("body", (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
                                  f"Origin: {srv.origin}\r\nContent-Type: application/json\r\n"
                                  f"Content-Length: 5000\r\n\r\n{{").encode())):
        s = socket.socket()
        s.bind(("127.0.0.5", 0))
        s.connect(("127.0.0.1", srv.port))
        s.sendall(first)
        s.setblocking(False)
        conns[kind] = s
    closed_after = {}
    time.sleep(1)
    assert len(threads_on_sockets(worker)) <= 2, "a silent connection must not hold a server thread"
    while len(closed_after) < len(conns) and time.monotonic() - opened < REQUEST_DEADLINE + 15:
        for kind, s in conns.items():
            if kind in closed_after:
                continue
            try:
                if kind != "idle":
                    s.send(b"a" if kind == "headers" else b" ")
                gone = s.recv(65536) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                closed_after[kind] = time.monotonic() - opened
        time.sleep(0.5)
    print(f"\nclosed after (s): " + ", ".join(f"{k} {v:.1f}" for k, v in closed_after.items()))
    assert set(closed_after) == set(conns), closed_after
    for kind, after in closed_after.items():
        assert REQUEST_DEADLINE - 1 <= after <= REQUEST_DEADLINE + 10, (kind, after)
    assert threads_on_sockets(worker) == []
    for s in conns.values():
        s.close()


def test_at_the_budget_strangers_make_room_and_a_seated_phone_keeps_its_connection(start_server):
    """With every connection of the budget taken, a new one closes the oldest waiting connection of the
    address holding the most; a seated phone's kept-alive connection is never the one closed, not even
    when it shares the address of the flood (one Wi-Fi behind a router), and a stranger from another
    address still gets in.""" 
    budget = 24
    srv = start_server(env=dict(FAST, COMPANION_MAX_CONNECTIONS=str(budget)))
    phones = {"blue": Phone(srv, source=ATTACKER), "red": Phone(srv, source="127.0.0.12")}
    gid = create_game(phones["blue"], list(phones), seed=22)
    seat_and_start(gid, phones["blue"], phones)
    kept = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=(ATTACKER, 0))

    def ask() -> int:
        kept.request("GET", f"/api/games/{gid}", headers={"Cookie": phones["blue"].cookie_header()})
        r = kept.getresponse()
        r.read()
        return r.status

    assert ask() == 200   # from here on this connection belongs to a device the table knows
    flood = []
    for _ in range(3 * budget):
        s = socket.socket()
        s.bind((ATTACKER, 0))
        s.connect(("127.0.0.1", srv.port))
        flood.append(s)
    time.sleep(0.5)
    held = held_from(srv.worker_pid(), srv.port, ATTACKER)
    print(f"\n{len(flood)} silent connections from {ATTACKER}: {held} held (budget {budget})")
    assert held <= budget, held
    assert ask() == 200, "the seated phone's kept-alive connection was closed for a stranger"
    stranger = Phone(srv, source="127.0.0.31")
    assert stranger.get("/api/games/current").status == 200
    kept.close()
    for s in flood:
        s.close()
