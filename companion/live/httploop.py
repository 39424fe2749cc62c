"""HTTP/1.1 on one non-blocking thread (h11): a request reaches the app's threads only once its head and
body have arrived, and its answer is written back by this thread, so a slow, silent or unread client
costs a socket, never a thread. Strangers share one budget of connections and threads; the devices the
table knows (a seated phone's cookie, the Pi itself) are served first and never evicted for them."""
from __future__ import annotations

import errno
import io
import logging
import selectors
import socket
import sys
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional
from urllib.parse import unquote_to_bytes, urlsplit

import h11

from companion.limits import (HTTP_SEND_DEADLINE, IDLE_DEADLINE, KEEPALIVE, LINGER, MAX_BODY, MAX_CONNECTIONS, MAX_HEAD,
                              MAX_LINGERING, OWN, PER_ADDRESS_THREADS, REQUEST_DEADLINE, RESERVED_THREADS)

log = logging.getLogger(__name__)


class Conn:
    """One client connection and where it is: reading, queued, running (in a thread), writing."""

    __slots__ = ("sock", "address", "port", "h11", "state", "deadline", "opened", "known", "head",
                 "body", "too_large", "out", "detached", "watching", "begun")

    def __init__(self, sock: socket.socket, peer, now: float):
        self.sock = sock
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        self.port = str(peer[1]) if isinstance(peer, tuple) and len(peer) > 1 else ""
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.state = "reading"
        self.opened = now
        self.deadline = now + IDLE_DEADLINE
        self.known = self.address in OWN
        self.head: Optional[h11.Request] = None
        self.body = bytearray()
        self.too_large = False
        self.out = bytearray()
        self.detached = False   # a WebSocket taken by the live loop: no longer ours
        self.watching = 0       # selector events registered
        self.begun = False      # the current request's first byte has come: its deadline runs


class Server:
    """Accept, read, queue, hand to a thread, write, keep alive; everything here runs on the loop's thread
    unless it says otherwise."""

    def __init__(self, listener: socket.socket, app: Callable, threads: int = 16,
                 knows: Optional[Callable[[dict], bool]] = None, max_connections: int = MAX_CONNECTIONS):
        listener.setblocking(False)
        self.listener = listener
        self.app = app
        self.threads = max(threads, RESERVED_THREADS + 1)
        self.knows = knows or (lambda environ: False)
        self.max_connections = max_connections
        self.local = listener.getsockname()
        self.sel = selectors.DefaultSelector()
        self.conns: set[Conn] = set()
        self.by_address: dict[str, set[Conn]] = {}
        self.known_queue: deque[tuple[Conn, dict]] = deque()
        self.stranger_queue: OrderedDict[str, deque[tuple[Conn, dict]]] = OrderedDict()
        self.running: dict[str, int] = {}   # address -> requests in threads
        self.running_all = 0
        self.running_strangers = 0
        self.lingering: deque[tuple[float, socket.socket]] = deque()
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="companion-http")
        self._done: deque = deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stopping = False
        self._accept_paused_until = 0.0

    # -- the loop --

    def stop(self) -> None:
        """Ask the loop to finish (from a signal handler or another thread)."""
        self._stopping = True
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass   # awake already

    def serve_forever(self, grace: float = 3.0) -> None:
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        next_tick = 0.0
        while not self._stopping:
            for key, mask in self.sel.select(0.25):
                what = key.data
                if what == "accept":
                    self._accept()
                elif what == "wake":
                    self._drain_wake()
                elif isinstance(what, Conn):
                    self._on_event(what, mask)
                else:
                    self._drain_lingering(key.fileobj)
            self._finish_done()
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + 0.25
                self._tick(now)
        self.sel.unregister(self.listener)
        self.listener.close()
        end = time.monotonic() + grace   # answers being made are written; nothing new is read
        while self.running_all and time.monotonic() < end:
            self.sel.select(0.05)
            self._finish_done()
        self.pool.shutdown(wait=False)

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass

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
        for _ in range(64):
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    log.warning("Cannot accept a connection now: %s", e)   # never a reason to stop
                    self._evict()
                    self._accept_paused_until = time.monotonic() + 0.1
                return
            sock.setblocking(False)
            # Every answer and live view is written whole when ready: Nagle's wait for an ACK would only hold a
            # view's last segment behind the phone's delayed ACK (40 ms).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Conn(sock, peer, time.monotonic())
            if len(self.conns) >= self.max_connections and not self._evict():
                _reset(sock)   # nothing is kept for it, not even a closing state
                continue
            self.conns.add(conn)
            self.by_address.setdefault(conn.address, set()).add(conn)
            self._watch(conn, selectors.EVENT_READ)

    def _evict(self) -> bool:
        """Close a stranger's connection that is only waiting to be read: the oldest of the address
        holding the most. Devices the table knows are never chosen."""
        best = None
        for address, held in self.by_address.items():
            idle = [c for c in held if c.state == "reading" and not c.known]
            if idle and (best is None or len(held) > best[0]):
                best = (len(held), min(idle, key=lambda c: c.opened))
        if best is None:
            return False
        _reset(best[1].sock)
        self._forget(best[1])
        return True

    # -- reading a whole request --

    def _on_event(self, conn: Conn, mask: int) -> None:
        if conn.state == "reading" and mask & selectors.EVENT_READ:
            try:
                data = conn.sock.recv(65536)
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

    def _advance(self, conn: Conn) -> None:
        """Take what h11 can parse; hand a complete request on."""
        while conn.state == "reading":
            try:
                event = conn.h11.next_event()
            except h11.RemoteProtocolError as e:
                status = e.error_status_hint if 400 <= e.error_status_hint < 500 else 400
                self._refuse(conn, status)
                return
            if event is h11.NEED_DATA:
                if conn.h11.they_are_waiting_for_100_continue and conn.head is not None:
                    try:
                        conn.sock.send(conn.h11.send(h11.InformationalResponse(status_code=100, headers=[])))
                    except (OSError, h11.LocalProtocolError):
                        pass
                return
            if isinstance(event, h11.Request):
                conn.head, conn.body, conn.too_large = event, bytearray(), False
                if _declared_length(event) > MAX_BODY:
                    conn.too_large = True   # the app says 413 from the head alone; the body is never read
                    self._queue(conn)
                    return
            elif isinstance(event, h11.Data):
                conn.body += event.data
                if len(conn.body) > MAX_BODY:
                    conn.too_large = True
                    self._queue(conn)
                    return
            elif isinstance(event, h11.EndOfMessage):
                self._queue(conn)
                return
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                self._close(conn)
                return

    def _refuse(self, conn: Conn, status: int) -> None:
        """A request h11 cannot parse: a short answer, then the connection closes."""
        reason = {400: "Bad Request", 414: "URI Too Long", 431: "Request Header Fields Too Large"}.get(status, "Bad Request")
        body = b"This request could not be read.\n"
        conn.out += (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
        conn.state = "writing"
        conn.head = None
        conn.deadline = time.monotonic() + HTTP_SEND_DEADLINE
        self._write(conn, close_after=True)

    # -- queueing for a thread: known devices first, strangers in turn by address --

    def _queue(self, conn: Conn) -> None:
        self._watch(conn, 0)
        conn.state = "queued"
        conn.deadline = time.monotonic() + REQUEST_DEADLINE
        environ = self._environ(conn)
        if not conn.known:
            try:
                conn.known = bool(self.knows(environ))
            except Exception:
                log.exception("could not tell whether a device is known")
        if conn.known:
            self.known_queue.append((conn, environ))
        else:
            self.stranger_queue.setdefault(conn.address, deque()).append((conn, environ))
        self._pump()

    def _pump(self) -> None:
        while self.running_all < self.threads:
            if self.known_queue:
                conn, environ = self.known_queue.popleft()
            else:
                picked = self._next_stranger()
                if picked is None:
                    return
                conn, environ = picked
            self._submit(conn, environ)

    def _next_stranger(self):
        if self.running_strangers >= self.threads - RESERVED_THREADS:
            return None
        for address, waiting in self.stranger_queue.items():
            if self.running.get(address, 0) < PER_ADDRESS_THREADS or address in OWN:
                picked = waiting.popleft()
                if waiting:
                    self.stranger_queue.move_to_end(address)   # round robin between addresses
                else:
                    del self.stranger_queue[address]
                return picked
        return None

    def _submit(self, conn: Conn, environ: dict) -> None:
        conn.state = "running"
        self.running_all += 1
        self.running[conn.address] = self.running.get(conn.address, 0) + 1
        if not conn.known:
            self.running_strangers += 1
        try:
            conn.sock.settimeout(HTTP_SEND_DEADLINE)   # the app may write a WebSocket handshake on it
        except OSError:
            pass
        self.pool.submit(self._run_app, conn, environ)

    # -- in a pool thread --

    def _run_app(self, conn: Conn, environ: dict) -> None:
        """Runs the WSGI app and collects its whole answer; the loop writes it."""
        answer: dict = {}
        chunks: list[bytes] = []

        def start_response(status, headers, exc_info=None):
            if exc_info and answer.get("sent"):
                raise exc_info[1].with_traceback(exc_info[2])
            answer["status"], answer["headers"] = status, headers
            return chunks.append

        try:
            result = self.app(environ, start_response)
            try:
                for chunk in result:
                    if chunk:
                        answer["sent"] = True
                        chunks.append(chunk)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        except Exception:
            log.exception("Error handling %s %s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
            answer = {"status": "500 Internal Server Error", "headers": [("Content-Type", "text/plain")]}
            chunks = [b"Internal Server Error\n"]
        self._done.append((conn, answer, b"".join(chunks)))
        self._wake()

    # -- writing the answer --

    def _finish_done(self) -> None:
        while self._done:
            conn, answer, body = self._done.popleft()
            self.running_all -= 1
            left = self.running.get(conn.address, 1) - 1
            if left:
                self.running[conn.address] = left
            else:
                self.running.pop(conn.address, None)
            if not conn.known:
                self.running_strangers -= 1
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
        conn.sock.setblocking(False)
        status = answer["status"]
        code = int(status[:3])
        headers = [(str(k).encode("latin-1"), str(v).encode("latin-1")) for k, v in answer["headers"]]
        bodyless = conn.head is None or conn.head.method == b"HEAD" or code < 200 or code in (204, 304)
        if not any(k.lower() == b"content-length" for k, _ in headers) and not bodyless:
            headers.append((b"Content-Length", str(len(body)).encode()))
        if conn.too_large:
            headers.append((b"Connection", b"close"))
        else:
            # Said, so a client stops reusing the connection before we close it (Node's agent does, from this
            # header): a POST sent on it as it closes would otherwise be lost to the client as "socket hang up".
            headers.append((b"Keep-Alive", b"timeout=%d" % int(KEEPALIVE)))
        try:
            out = conn.h11.send(h11.Response(status_code=code, reason=status[4:].encode("latin-1"), headers=headers))
            if body and not bodyless:
                out += conn.h11.send(h11.Data(data=body))
            out += conn.h11.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            log.exception("an answer could not be framed")
            self._close(conn)
            return
        conn.out += out
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
            return
        if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            conn.h11.start_next_cycle()
            conn.head, conn.body, conn.too_large, conn.begun = None, bytearray(), False, False
            conn.state = "reading"
            conn.deadline = time.monotonic() + KEEPALIVE
            self._watch(conn, selectors.EVENT_READ)
            self._advance(conn)   # a pipelined request may be waiting in h11's buffer already
        else:
            self._close(conn)

    # -- deadlines and closing --

    def _tick(self, now: float) -> None:
        for conn in [c for c in self.conns if c.state in ("reading", "writing", "queued") and now > c.deadline]:
            if conn.state == "queued":
                if conn.known:
                    continue   # a known device's request waits its turn, however long
                self._unqueue(conn)
            self._close(conn, hard=conn.state == "writing")
        while self.lingering and (self.lingering[0][0] <= now or len(self.lingering) > MAX_LINGERING):
            self._end_lingering(self.lingering.popleft()[1])

    def _unqueue(self, conn: Conn) -> None:
        waiting = self.stranger_queue.get(conn.address)
        if waiting is not None:
            for item in list(waiting):
                if item[0] is conn:
                    waiting.remove(item)
            if not waiting:
                del self.stranger_queue[conn.address]

    def _forget(self, conn: Conn) -> None:
        if conn.watching:
            try:
                self.sel.unregister(conn.sock)
            except (KeyError, ValueError, OSError):
                pass
            conn.watching = 0
        self.conns.discard(conn)
        held = self.by_address.get(conn.address)
        if held is not None:
            held.discard(conn)
            if not held:
                del self.by_address[conn.address]
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
            while sock.recv(65536):
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

    # -- the WSGI environ --

    def _environ(self, conn: Conn) -> dict:
        req = conn.head
        target = req.target
        if target[:7].lower() == b"http://" or target[:8].lower() == b"https://":
            parts = urlsplit(target.decode("latin-1"))
            path, query = parts.path or "/", parts.query
        else:
            raw, _, q = target.partition(b"?")
            path, query = raw.decode("latin-1"), q.decode("latin-1")
        path = path.partition("#")[0]
        environ = {
            "REQUEST_METHOD": req.method.decode("latin-1"),
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query,
            "RAW_URI": target.decode("latin-1"),
            "SERVER_PROTOCOL": "HTTP/" + req.http_version.decode("latin-1"),
            "REMOTE_ADDR": conn.address,
            "REMOTE_PORT": conn.port,
            "SERVER_NAME": str(self.local[0]),
            "SERVER_PORT": str(self.local[1]),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(bytes(conn.body)),
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "companion.socket": conn.sock,
            "companion.detach": lambda: setattr(conn, "detached", True),
        }
        for name, value in req.headers:
            key = name.decode("latin-1").upper().replace("-", "_")
            if "_" in name.decode("latin-1"):
                continue   # X_Forwarded_For would pass for X-Forwarded-For: such names are dropped
            text = value.decode("latin-1")
            if key == "CONTENT_TYPE":
                environ["CONTENT_TYPE"] = text
                continue
            if key in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
                continue
            key = "HTTP_" + key
            if key in environ:
                environ[key] += ("; " if key == "HTTP_COOKIE" else ",") + text
            else:
                environ[key] = text
        environ["CONTENT_LENGTH"] = str(max(len(conn.body), _declared_length(req) if conn.too_large else 0))
        return environ


def _declared_length(req: h11.Request) -> int:
    for name, value in req.headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _reset(sock: socket.socket) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
    except OSError:
        pass
    sock.close()
