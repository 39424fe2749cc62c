"""`companion serve`: one process (companion/live/httploop.py, the app's threads, the live loop), the join URL and its QR code in the journal."""
from __future__ import annotations

import errno
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
from companion.store import serverlock


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
    # What the first pages, sockets and game make once and keep (templates, the catalogs, wsproto, the routes'
    # matcher, modules imported when first needed: about 5,000 objects) is frozen too once the first bid is told.
    # Left young, it was walked by two or three passes of the collector's middle generation (about 1 ms each
    # here, ten on a Pi) in the middle of the first game's bids (benchmarks/bench_peer.py, docs/BENCHMARKS.md).
    config["WARMED"] = gc.freeze
    if args.db:
        config["DB"] = args.db
    logging.basicConfig(level=logging.WARNING, format="[%(asctime)s] [%(levelname)s] %(message)s")
    try:   # before the port: a second server on this database is named as such, not as "port in use"
        lock = serverlock.take(db_file(args.db), args.port)
    except serverlock.HeldElsewhere as e:
        print(e, file=sys.stderr, flush=True)
        return 1
    try:
        listener = listen(args.host, args.port)
    except OSError as e:
        print(cannot_listen(args.host, args.port, e), file=sys.stderr, flush=True)
        return 1
    _more_files()
    app = create_app(config)
    resumed = resumed_text(app.extensions["table"])
    if resumed:
        print(resumed, flush=True)
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
    # counted from the first answer (started there), as it says
    later = threading.Timer(float(os.environ.get("COMPANION_CHECK_AFTER") or 2.0), store.check)
    later.daemon = True

    def ready() -> None:
        later.start()
        _after_first_answer(args.host, args.port, override)

    server.serve_forever(ready=ready)
    later.cancel()
    # the LEDs go dark when the service stops (seen in the emulated Pi: the last bidder's pin stayed high)
    app.extensions["leds"].close()
    store.close()   # a clean stop: the next start need not read the whole file
    print(stopped_text(app.extensions["table"]), flush=True)
    if lock is not None:
        os.close(lock)
    return 0


def db_file(arg: Optional[str]) -> str:
    """The database this server opens, as create_app resolves it (--db, else COMPANION_DB, else the default)."""
    from companion.app import DEFAULTS

    path = arg or os.environ.get("COMPANION_DB") or DEFAULTS["DB"]
    return path if path == ":memory:" else os.path.abspath(path)


def cannot_listen(host: str, port: int, e: OSError) -> str:
    """One sentence for a port that cannot be had; a port in use names the way out (--port)."""
    if e.errno == errno.EADDRINUSE:
        return (f"Metropolys companion cannot listen on port {port}: another program already uses it. "
                f"Start on another port, e.g. scripts/serve --port {port + 1}.")
    return f"Metropolys companion cannot listen on {host} port {port}: {e.strerror or e}."


def _games_on(table) -> list:
    return [g for g in table.games.values() if g.in_progress]


def resumed_text(table) -> Optional[str]:
    """At start: the games in progress read back from the database (phones rejoin them by themselves)."""
    said = []
    for game in _games_on(table):
        names = [game.names.get(c) or c for c in game.colors if c in game.devices]
        what = "being played" if game.phase == "playing" else "in its lobby"
        said.append(f"game {game.id} ({what}; {', '.join(names) or 'no seat taken'})")
    if not said:
        return None
    return f"Resumed {' and '.join(said)}: the phones and the table display rejoin by themselves."


def stopped_text(table) -> str:
    """At a stop (Ctrl-C, or the service stopped): every move was saved as it was made."""
    games = _games_on(table)
    if not games:
        return "Metropolys companion stopped."
    which = ", ".join(g.id for g in games)
    return (f"Metropolys companion stopped; the game is saved ({which}): start it again to resume "
            f"where you left off.")


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
