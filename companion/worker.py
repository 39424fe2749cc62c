"""gunicorn's gthread worker with a connection budget no device can break: a cap on the connections one
address may hold, no thread until a request's first byte, a few threads at most per address, a deadline
for a whole request (a slow drip does not beat it), closing without stalling the accept loop, and
WebSockets handed off to the live loop so that they hold no thread."""
from __future__ import annotations

import errno
import socket
import threading
import time
from collections import defaultdict, deque
from functools import partial

from gunicorn.workers.gthread import ThreadWorker, TConn

from .live import OWN

PER_ADDRESS_CONNECTIONS = 16   # open HTTP connections from one address (a browser opens about 6)
PER_ADDRESS_THREADS = 4        # requests from one address served at once; the next ones wait their turn
REQUEST_DEADLINE = 10.0        # seconds from a request's first byte to the end of its answer
IDLE_DEADLINE = 10.0           # seconds a new connection may stay silent
LINGER = 2.0                   # seconds a closing connection is drained before it is closed


class Conn(TConn):
    """A connection with the budget's bookkeeping."""

    def __init__(self, worker, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.worker = worker
        self.address = self.client[0] if isinstance(self.client, tuple) else str(self.client)
        self.deadline = 0.0
        self.detached = False   # a WebSocket handed to the live loop: no longer ours to close
        self.cut = False        # shut down at its deadline

    def close(self, graceful=False):
        if graceful:
            self.worker.linger(self.sock)
        else:
            try:
                self.sock.close()
            except OSError:
                pass


class TableWorker(ThreadWorker):
    """See the module docstring; everything here runs on gunicorn's main loop unless it says otherwise."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.open_by_address: dict[str, set[Conn]] = defaultdict(set)
        self.active_by_address: dict[str, int] = defaultdict(int)
        self.waiting_by_address: dict[str, deque[Conn]] = defaultdict(deque)
        self.busy: set[Conn] = set()
        self.lingering: deque = deque()   # (deadline, socket)
        self.current = threading.local()  # the connection a pool thread is serving
        self.next_prune = 0.0

    # -- the application sees a way to take its socket away (a WebSocket upgrade) --

    def load_wsgi(self):
        super().load_wsgi()
        app = self.wsgi

        def wsgi(environ, start_response):
            conn = getattr(self.current, "conn", None)
            if conn is not None:
                environ["companion.detach"] = partial(self._detach, conn)
            return app(environ, start_response)

        self.wsgi = wsgi

    def handle_error(self, req, client, addr, exc):
        """A transfer coding gunicorn does not know is a malformed request like any other: 400, not its 501."""
        from gunicorn.http.errors import InvalidHeader, UnsupportedTransferCoding

        if isinstance(exc, UnsupportedTransferCoding):
            exc = InvalidHeader("Transfer-Encoding")
        return super().handle_error(req, client, addr, exc)

    def handle(self, conn):
        """Runs in a pool thread."""
        self.current.conn = conn
        try:
            return super().handle(conn)
        finally:
            self.current.conn = None

    @staticmethod
    def _detach(conn: Conn) -> None:
        conn.detached = True

    # -- accept: a cap per address, and no thread until the first byte --

    def accept(self, listener):
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                self.log.warning("Cannot accept a connection now: %s", e)   # never a reason to stop
            elif e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        conn = Conn(self, self.cfg, client_sock, client_addr, listener.getsockname())
        held = self._prune(conn.address)
        if len(held) >= PER_ADDRESS_CONNECTIONS and conn.address not in OWN:
            client_sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            client_sock.close()   # a reset: nothing is kept for it, not even a closing state
            return
        held.add(conn)
        self.nr_conns += 1
        conn.timeout = time.monotonic() + IDLE_DEADLINE
        self.pending_conns.append(conn)
        self.poller.register(conn.sock, _READ, partial(self.on_pending_socket_readable, conn))

    def _prune(self, address: str) -> set:
        """The connections still open from `address` (closed ones are dropped lazily, here)."""
        held = self.open_by_address[address]
        for c in [c for c in held if c.detached or c.sock.fileno() == -1]:
            held.discard(c)
        return held

    # -- threads: a few per address at a time, each request under a deadline --

    def enqueue_req(self, conn):
        conn.deadline = time.monotonic() + REQUEST_DEADLINE
        if self.active_by_address[conn.address] >= PER_ADDRESS_THREADS and conn.address not in OWN:
            self.waiting_by_address[conn.address].append(conn)
            return
        self._submit(conn)

    def _submit(self, conn):
        self.active_by_address[conn.address] += 1
        self.busy.add(conn)
        super().enqueue_req(conn)

    def finish_request(self, conn, fs):
        address = conn.address
        self.busy.discard(conn)
        self.active_by_address[address] -= 1
        if conn.detached:
            self.nr_conns -= 1
            self.open_by_address[address].discard(conn)
        else:
            super().finish_request(conn, fs)
        waiting = self.waiting_by_address.get(address)
        while waiting and (self.active_by_address[address] < PER_ADDRESS_THREADS or address in OWN):
            self._submit(waiting.popleft())
        if not waiting:
            self.waiting_by_address.pop(address, None)
        if not self.active_by_address[address]:
            del self.active_by_address[address]
        if not self.open_by_address.get(address, True):
            del self.open_by_address[address]

    def murder_pending(self):
        """Also: cut requests past their deadline, drop waiting ones past it, close drained lingerers."""
        super().murder_pending()
        now = time.monotonic()
        for conn in list(self.busy):
            if now > conn.deadline and not conn.detached and not conn.cut:
                conn.cut = True
                try:   # wakes the pool thread blocked in recv or send; it ends and closes the connection
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for address, waiting in list(self.waiting_by_address.items()):
            while waiting and now > waiting[0].deadline:
                self.nr_conns -= 1
                waiting.popleft().close()
            if not waiting:
                del self.waiting_by_address[address]
        while self.lingering and self.lingering[0][0] <= now:
            self._close_lingering(self.lingering.popleft()[1])
        if now >= self.next_prune:   # addresses that stopped connecting leave no bookkeeping behind
            self.next_prune = now + 10.0
            for address in list(self.open_by_address):
                if not self._prune(address):
                    del self.open_by_address[address]

    # -- closing without blocking this loop (gunicorn's graceful close waits up to 2 s for the peer) --

    def linger(self, sock):
        try:
            sock.shutdown(socket.SHUT_WR)   # our answer, then FIN
            sock.setblocking(False)
            self.poller.register(sock, _READ, self._drain)
        except (OSError, ValueError, KeyError):
            sock.close()
            return
        self.lingering.append((time.monotonic() + LINGER, sock))

    def _drain(self, sock):
        try:
            while sock.recv(65536):
                pass
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._close_lingering(sock)   # the peer closed too

    def _close_lingering(self, sock):
        if sock.fileno() == -1:
            return
        try:
            self.poller.unregister(sock)
        except (KeyError, ValueError, OSError):
            pass
        sock.close()


_READ = 1  # selectors.EVENT_READ
