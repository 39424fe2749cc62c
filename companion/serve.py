"""`companion serve`: gunicorn with threads in one process, the join URL and its QR code in the journal."""
from __future__ import annotations

import fcntl
import io
import os
import socket
import struct
import sys

SIOCGIFADDR = 0x8915


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine's interfaces, read from the kernel (no packet is sent)."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
            addr = socket.inet_ntoa(packed[20:24])
            if not addr.startswith("127."):
                found.append(addr)
    return found


def join_base(host: str, port: int, override: str | None) -> str:
    """Phones need an address they can reach: the Pi's LAN IP, not `.local` (Android often cannot resolve it)."""
    if override:
        return override.rstrip("/")
    if host not in ("0.0.0.0", "::", ""):
        return f"http://{host}:{port}"
    addrs = lan_addresses()
    return f"http://{addrs[0] if addrs else '127.0.0.1'}:{port}"


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

    base = join_base(args.host, args.port, args.url or os.environ.get("COMPANION_JOIN_URL"))
    config = {"JOIN_URL": base}
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
            self.cfg.set("post_worker_init", lambda worker: _announce(base))

        def load(self):
            return create_app(config)

    Server().run()
    return 0


def _announce(base: str) -> None:
    print(f"Metropolys companion is up. Join at {base}/  (table display: {base}/table)", flush=True)
    print(qr_text(base + "/"), flush=True)
    sys.stdout.flush()
