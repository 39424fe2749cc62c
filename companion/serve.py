"""`companion serve`: gunicorn with threads in one process, the join URL and its QR code in the journal."""
from __future__ import annotations

import io
import os
import sys
from typing import Optional

from .netaddr import lan_addresses


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


def serve(args) -> int:
    from gunicorn.app.base import BaseApplication

    from . import create_app

    override = args.url or os.environ.get("COMPANION_JOIN_URL")
    # Only an explicit URL is fixed; otherwise each request works it out (pages, QR codes, API).
    config = {"LISTEN": args.host, **({"JOIN_URL": override} if override else {})}
    if args.db:
        config["DB"] = args.db

    class Server(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"[{args.host}]:{args.port}" if ":" in args.host else f"{args.host}:{args.port}")
            # One process holds the game, the sockets and the GPIO pins: threads, never more workers.
            self.cfg.set("workers", 1)
            # gthread with a connection budget (companion/worker.py); live sockets hold no thread.
            self.cfg.set("worker_class", "companion.worker.TableWorker")
            self.cfg.set("threads", args.threads)
            self.cfg.set("keepalive", 5)  # an idle kept-alive connection is closed after 5 s
            self.cfg.set("timeout", 0)   # sockets stay open for hours; gthread still reaps dead clients
            self.cfg.set("graceful_timeout", 3)
            self.cfg.set("accesslog", None)
            self.cfg.set("errorlog", "-")
            self.cfg.set("loglevel", "warning")
            self.cfg.set("post_worker_init", lambda worker: _announce(args.host, args.port, override))

        def load(self):
            return create_app(config)

    Server().run()
    return 0


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
