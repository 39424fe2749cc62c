"""`companion serve`: one process (companion/live/httploop.py, the app's threads, the live loop), the join URL and its QR code in the journal."""
from __future__ import annotations

import gc
import io
import logging
import os
import signal
import socket
import sys
import threading
from typing import Optional

from companion.pi.netaddr import lan_addresses


def announce_base(host: str, port: int, override: Optional[str]) -> Optional[str]:
    """The join URL to print at start, or None while this machine has no address phones could reach."""
    if override:
        return override.rstrip("/")
    if host not in ("0.0.0.0", "::", ""):
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    addrs = lan_addresses()
    return f"http://{addrs[0]}:{port}" if addrs else None


def qr_text(url: str) -> str:
    import qrcode

    qr = qrcode.QRCode(border=2)
    qr.add_data(url)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


def listen(host: str, port: int) -> socket.socket:
    """The listening socket (IPv6 ones also take IPv4 where the system allows)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


def serve(args) -> int:
    from companion import create_app
    from companion.limits import MAX_CONNECTIONS
    from companion.live.httploop import Server

    override = args.url or os.environ.get("COMPANION_JOIN_URL")
    # Only an explicit URL is fixed; otherwise each request works it out (pages, QR codes, API).
    config = {"LISTEN": args.host, **({"JOIN_URL": override} if override else {})}
    if args.db:
        config["DB"] = args.db
    logging.basicConfig(level=logging.WARNING, format="[%(asctime)s] [%(levelname)s] %(message)s")
    try:
        listener = listen(args.host, args.port)
    except OSError as e:
        print(f"Metropolys companion cannot listen on {args.host} port {args.port}: {e.strerror or e}.",
              file=sys.stderr, flush=True)
        return 1
    _more_files()
    app = create_app(config)
    # What start-up made (modules, routes, the app, the games replayed) lives as long as the process: kept
    # out of the collector's full passes, which otherwise walk it all every so often in the middle of a bid
    # (25 ms of CPU on the build machine, 250 ms at a tenth of a core).
    gc.freeze()
    # One process holds the game, the sockets and the GPIO pins: threads, never more processes.
    budget = int(os.environ.get("COMPANION_MAX_CONNECTIONS") or MAX_CONNECTIONS)
    server = Server(listener, app, threads=args.threads, knows=device_knower(app), max_connections=budget)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: server.stop())
    # Nothing old is read on the way to the first answer; after a clean stop the whole file is read
    # once the server answers (after an unclean one it was read at open, before anything else).
    store = app.extensions["table"].store
    later = threading.Timer(2.0, store.check)
    later.daemon = True
    later.start()
    server.serve_forever(ready=lambda: _after_first_answer(args.host, args.port, override))
    later.cancel()
    # the LEDs go dark when the service stops (seen in the emulated Pi: the last bidder's pin stayed high)
    app.extensions["leds"].close()
    store.close()   # a clean stop: the next start need not read the whole file
    return 0


def device_knower(app):
    """Whether a request comes from a device the table knows: seated, hosting or the table display."""
    from werkzeug.http import parse_cookie

    from companion.table import device_id

    table = app.extensions["table"]

    def knows(environ: dict) -> bool:
        cookie = parse_cookie(environ.get("HTTP_COOKIE", "")).get("device")
        if not cookie:
            return False
        return table.holds_seat(device_id(cookie))

    return knows


def _more_files() -> None:
    """Up to the hard limit of open files: each held connection is one."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))
    except (ImportError, ValueError, OSError):
        pass


def _after_first_answer(host: str, port: int, override: Optional[str]) -> None:
    """What a start can leave until the first answer is out: the table's screen waits for that answer; a person
    reading the journal does not wait for the join URL and QR code (20 ms, qrcode's import half of it), and the
    first live socket, a moment later, finds wsproto imported (13 ms)."""
    from companion.live.wsloop import wsproto

    _announce(host, port, override)
    wsproto()


def _announce(host: str, port: int, override: Optional[str]) -> None:
    base = announce_base(host, port, override)
    if base is None:
        print(f"Metropolys companion is up on port {port}, but this machine has no network address yet: "
              f"phones can join once it is on a network (Wi-Fi, Ethernet or the hotspot), no restart needed; "
              f"the table display (http://127.0.0.1:{port}/table) then shows the join QR code.", flush=True)
        return
    # The front door: the game on the table first (join or watch), a new game second.
    print(f"Metropolys companion is up. Join at {base}/ (the front door: the game on the table, or a new one;"
          f" table display: {base}/table)", flush=True)
    print(qr_text(base + "/"), flush=True)
    sys.stdout.flush()
