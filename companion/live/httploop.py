"""HTTP/1.1 on one non-blocking thread: a request reaches the app's threads only once its head and body have
arrived, and its answer is written back by this thread, so a slow, silent or unread client costs a socket,
never a thread. The parsing is in httpconn.py, who goes first in budget.py, the app's threads in dispatch.py."""
from __future__ import annotations

import errno
import logging
import selectors
import socket
import time
from collections import deque
from typing import Callable, Optional

import h11

from companion.limits import (ACCEPT_BATCH, ACCEPT_PAUSE, HTTP_RECV_BYTES, HTTP_SEND_DEADLINE, HTTP_THREADS, KEEPALIVE,
                              LINGER, LOOP_TICK, MAX_CONNECTIONS, MAX_LINGERING, REQUEST_DEADLINE, STOP_GRACE)
from companion.live.budget import Budget
from companion.live.dispatch import Dispatch
from companion.live.httpconn import Conn, environ, refusal

log = logging.getLogger(__name__)


class Server:
    """Accept, read, queue, hand to a thread, write, keep alive; everything here runs on the loop's thread
    unless it says otherwise."""

    def __init__(self, listener: socket.socket, app: Callable, threads: int = HTTP_THREADS,
                 knows: Optional[Callable[[dict], bool]] = None, max_connections: int = MAX_CONNECTIONS):
        listener.setblocking(False)
        self.listener = listener
        self.local = listener.getsockname()
        self.sel = selectors.DefaultSelector()
        self.budget = Budget(threads, max_connections, knows or (lambda environ: False))
        self.dispatch = Dispatch(app, self.budget.threads)
        self.lingering: deque[tuple[float, socket.socket]] = deque()
        self._stopping = False
        self._accept_paused_until = 0.0
        self.answered = 0   # answers handed to their connections

    # -- the loop --

    def stop(self) -> None:
        """Ask the loop to finish (from a signal handler or another thread)."""
        self._stopping = True
        self.dispatch.wake()

    def serve_forever(self, grace: float = STOP_GRACE, ready: Optional[Callable[[], None]] = None) -> None:
        """Serve until stop(); `ready` runs once, on this thread, after the first answer or a tick with none
        asked (what can wait, such as the journal's QR code, waits until the first answer is out)."""
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self.dispatch.waker, selectors.EVENT_READ, "wake")
        next_tick = 0.0
        while not self._stopping:
            events = self.sel.select(LOOP_TICK)
            if ready is not None and (self.answered or not events):
                ready, later = None, ready
                try:
                    later()
                except Exception:   # the journal's text must never stop the serving
                    log.exception("could not announce the join URL")
            for key, mask in events:
                what = key.data
                if what == "accept":
                    self._accept()
                elif what == "wake":
                    self.dispatch.drain()
                elif isinstance(what, Conn):
                    self._on_event(what, mask)
                else:
                    self._drain_lingering(key.fileobj)
            self._finish_done()
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + LOOP_TICK
                self._tick(now)
        self.sel.unregister(self.listener)
        self.listener.close()
        end = time.monotonic() + grace   # answers being made are written; nothing new is read
        while self.budget.running_all and time.monotonic() < end:
            self.sel.select(0.05)
            self._finish_done()
        self.dispatch.shutdown()

    def _watch(self, conn: Conn, events: int) -> None:
        if conn.watching == events:
            return
        try:
            if not conn.watching:
                self.sel.register(conn.sock, events, conn)
            elif not events:
                self.sel.unregister(conn.sock)
            else:
                self.sel.modify(conn.sock, events, conn)
            conn.watching = events
        except (KeyError, ValueError, OSError):
            conn.watching = 0
            self._close(conn)

    # -- accepting under the budget --

    def _accept(self) -> None:
        if time.monotonic() < self._accept_paused_until:
            return
        for _ in range(ACCEPT_BATCH):
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    log.warning("Cannot accept a connection now: %s", e)   # never a reason to stop
                    self._evict()
                    self._accept_paused_until = time.monotonic() + ACCEPT_PAUSE
                return
            sock.setblocking(False)
            # Every answer and live view is written whole when ready: Nagle's wait for an ACK would only hold a
            # view's last segment behind the phone's delayed ACK (40 ms).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Conn(sock, peer, time.monotonic())
            if self.budget.full() and not self._evict():
                _reset(sock)   # nothing is kept for it, not even a closing state
                continue
            self.budget.hold(conn)
            self._watch(conn, selectors.EVENT_READ)

    def _evict(self) -> bool:
        victim = self.budget.to_evict()
        if victim is None:
            return False
        _reset(victim.sock)
        self._forget(victim)
        return True

    # -- reading a whole request --

    def _on_event(self, conn: Conn, mask: int) -> None:
        if conn.state == "reading" and mask & selectors.EVENT_READ:
            try:
                data = conn.sock.recv(HTTP_RECV_BYTES)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if data and not conn.begun:
                conn.begun = True
                conn.deadline = time.monotonic() + REQUEST_DEADLINE   # the request's first byte
            try:
                conn.h11.receive_data(data)
            except RuntimeError:   # data after the peer's close: nothing more to read
                self._close(conn)
                return
            self._advance(conn)
        elif conn.state == "writing" and mask & selectors.EVENT_WRITE:
            self._write(conn)
        elif conn.state in ("queued", "running"):
            self._watch(conn, 0)   # more bytes before the answer: nothing is read until it is out

    def _advance(self, conn: Conn) -> None:
        """Take what h11 can parse; hand a whole request on, refuse one it cannot parse."""
        if conn.state != "reading":
            return
        got = conn.next_request()
        if got == "whole":
            self._queue(conn)
        elif got == "closed":
            self._close(conn)
        elif isinstance(got, int):
            conn.out += refusal(got)
            conn.state = "writing"
            conn.head = None
            conn.deadline = time.monotonic() + HTTP_SEND_DEADLINE
            self._write(conn, close_after=True)

    # -- a thread for it --

    def _queue(self, conn: Conn) -> None:
        """A whole request waits for a thread. Its socket stays in the selector (two epoll_ctl calls fewer per
        request) unless it asks for an upgrade: a WebSocket's socket is handed to the live loop, so it leaves
        this selector first and gets a send timeout for the handshake the app writes on it."""
        conn.state = "queued"
        conn.deadline = time.monotonic() + REQUEST_DEADLINE
        env = environ(conn, self.local)
        conn.upgrade = "HTTP_UPGRADE" in env
        if conn.upgrade:
            self._watch(conn, 0)
            try:
                conn.sock.settimeout(HTTP_SEND_DEADLINE)
            except OSError:
                pass
        self.budget.queue(conn, env)
        self._pump()

    def _pump(self) -> None:
        while True:
            picked = self.budget.next()
            if picked is None:
                return
            conn, env = picked
            conn.state = "running"
            self.dispatch.submit(conn, env)

    # -- writing the answer --

    def _finish_done(self) -> None:
        done = self.dispatch.done
        while done:
            conn, answer, body = done.popleft()
            self.budget.finished(conn)
            self.answered += 1
            self._answer(conn, answer, body)
        self._pump()

    def _answer(self, conn: Conn, answer: dict, body: bytes) -> None:
        if conn.detached:
            self._forget(conn)   # the live loop has it: not ours to close
            return
        if "status" not in answer:   # the app wrote on the socket itself and gave it up
            self._forget(conn)
            conn.sock.close()
            return
        if conn.sock.fileno() == -1:
            self._forget(conn)
            return
        if conn.upgrade:
            conn.sock.setblocking(False)   # the handshake's timeout is over
        try:
            conn.out += conn.answer(answer, body)
        except h11.LocalProtocolError:
            log.exception("an answer could not be framed")
            self._close(conn)
            return
        conn.state = "writing"
        conn.deadline = time.monotonic() + HTTP_SEND_DEADLINE
        self._write(conn)

    def _write(self, conn: Conn, close_after: bool = False) -> None:
        try:
            while conn.out:
                sent = conn.sock.send(conn.out)
                del conn.out[:sent]
        except (BlockingIOError, InterruptedError):
            self._watch(conn, selectors.EVENT_WRITE)
            return
        except OSError:
            self._close(conn, hard=True)
            return
        if close_after or conn.head is None:
            self._close(conn)
        elif conn.next_cycle():
            conn.state = "reading"
            conn.deadline = time.monotonic() + KEEPALIVE
            self._watch(conn, selectors.EVENT_READ)
            self._advance(conn)   # a pipelined request may be waiting in h11's buffer already
        else:
            self._close(conn)

    # -- deadlines and closing --

    def _tick(self, now: float) -> None:
        for conn in [c for c in self.budget.conns if c.state in ("reading", "writing", "queued") and now > c.deadline]:
            if conn.state == "queued":
                if conn.known:
                    continue   # a known device's request waits its turn, however long
                self.budget.unqueue(conn)
            self._close(conn, hard=conn.state == "writing")
        while self.lingering and (self.lingering[0][0] <= now or len(self.lingering) > MAX_LINGERING):
            self._end_lingering(self.lingering.popleft()[1])

    def _forget(self, conn: Conn) -> None:
        if conn.watching:
            try:
                self.sel.unregister(conn.sock)
            except (KeyError, ValueError, OSError):
                pass
            conn.watching = 0
        self.budget.release(conn)
        conn.state = "closed"

    def _close(self, conn: Conn, hard: bool = False) -> None:
        """Our answer, then FIN; the peer's last bytes are drained for a moment so it reads the answer."""
        if conn.state == "closed":
            return
        self._forget(conn)
        sock = conn.sock
        if hard:
            sock.close()
            return
        try:
            sock.shutdown(socket.SHUT_WR)
            self.sel.register(sock, selectors.EVENT_READ, sock)
        except (OSError, ValueError, KeyError):
            sock.close()
            return
        self.lingering.append((time.monotonic() + LINGER, sock))

    def _drain_lingering(self, sock: socket.socket) -> None:
        try:
            while sock.recv(HTTP_RECV_BYTES):
                pass
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._end_lingering(sock)   # the peer closed too

    def _end_lingering(self, sock: socket.socket) -> None:
        if sock.fileno() == -1:
            return
        try:
            self.sel.unregister(sock)
        except (KeyError, ValueError, OSError):
            pass
        sock.close()


def _reset(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0): nothing is kept for a connection turned away."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
    except OSError:
        pass
    sock.close()
