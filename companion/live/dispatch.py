"""The app's threads: a whole request runs the WSGI app in one of them, and its whole answer comes back to
the loop, which writes it; no thread ever waits on a client."""
from __future__ import annotations

import logging
import socket
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from companion.limits import WAKE_BYTES
from companion.live.httpconn import Conn

log = logging.getLogger(__name__)


class Dispatch:
    """Runs the app for the loop; `done` holds (conn, answer, body) and `waker` turns readable for each."""

    def __init__(self, app: Callable, threads: int):
        self.app = app
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="companion-http")
        self.done: deque[tuple[Conn, dict, bytes]] = deque()
        self.waker, self._wake_w = socket.socketpair()
        self.waker.setblocking(False)
        self._wake_w.setblocking(False)

    def submit(self, conn: Conn, environ: dict) -> None:
        self.pool.submit(self._run, conn, environ)

    def wake(self) -> None:
        """Make the loop's select return (from any thread)."""
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass   # awake already

    def drain(self) -> None:
        """One read (one syscall, not a second to see it empty): wake-ups left over keep the next select short."""
        try:
            self.waker.recv(WAKE_BYTES)
        except (BlockingIOError, InterruptedError):
            pass

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False)

    # -- in a pool thread --

    def _run(self, conn: Conn, environ: dict) -> None:
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
        self.done.append((conn, answer, b"".join(chunks)))
        self.wake()
