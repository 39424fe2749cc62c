"""create_app(config): wires the store, the table, the API, the pages, the live socket and the LEDs."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Optional

from flask import Flask

from companion import limits, web
from companion.live.hub import Hub
from companion.store import recover
from companion.store.db import Store
from companion.table import Table

HERE = Path(__file__).resolve().parent


def _folder(name: str) -> Path:
    """templates/ or static/: inside the package when installed from a wheel, else the repository's."""
    packed = HERE / name
    return packed if packed.is_dir() else HERE.parent / name

DEFAULTS = {
    "DB": "companion.sqlite3",
    "JOIN_URL": None,            # e.g. "http://192.168.4.1:8000"; otherwise worked out per request (netaddr)
    "LISTEN": None,              # the address `companion serve` listens on; loopback-only keeps loopback URLs
    "LED_PINS": "blue=17,red=27,white=22,gray=23",
    "LED_ACTIVE_HIGH": True,
    "LEDS": None,                # a ready Leds object (tests pass one built on MockFactory)
    "LED_PIN_FACTORY": None,
    "WIFI_SSID": None,
    "WIFI_PASSWORD": None,
    "RATE_LIMIT": limits.RATE_LIMIT,              # the abuse limits a host may tune: see limits.py
    "WRITE_RATE_LIMIT": limits.WRITE_RATE_LIMIT,
    "LOBBY_LIMIT": limits.LOBBY_LIMIT,
    "STARTED_LIMIT": limits.STARTED_LIMIT,
    "MAX_CONTENT_LENGTH": limits.MAX_BODY,
    "HOST_AWAY": limits.HOST_AWAY, # seconds the host's (or a seat's) device must be offline before the table may
                                 # hand the role (or the seat) on
    "SEAT_AWAY": limits.SEAT_AWAY,  # seconds the seat to act must be offline before a new phone may ask for it
    "SEAT_MOVE_WAIT": limits.SEAT_MOVE_WAIT,   # seconds every screen announces a seat moving to a new phone before it moves
    "BOT_DELAY": 2.0,            # seconds the Pi's LED shows its turn before it acts (a pause the table can see)
    "BOT_PROCESS": True,         # the Pi thinks in a process of its own (False: on a thread of the server's)
    "WARMED": None,              # called once, after the first bid this process logs (serve.py: a gc.freeze)
}

ENV = {  # settings the systemd unit passes through /etc/default/metropolys-companion
    "COMPANION_DB": ("DB", str),
    "COMPANION_JOIN_URL": ("JOIN_URL", str),
    "COMPANION_LED_PINS": ("LED_PINS", str),
    "COMPANION_LED_ACTIVE_HIGH": ("LED_ACTIVE_HIGH", lambda v: v.lower() not in ("0", "no", "false", "low")),
    "COMPANION_WIFI_SSID": ("WIFI_SSID", str),
    "COMPANION_WIFI_PASSWORD": ("WIFI_PASSWORD", str),
    "COMPANION_RATE_LIMIT": ("RATE_LIMIT", float),
    "COMPANION_WRITE_RATE_LIMIT": ("WRITE_RATE_LIMIT", float),
    "COMPANION_LOBBY_LIMIT": ("LOBBY_LIMIT", int),
    "COMPANION_STARTED_LIMIT": ("STARTED_LIMIT", int),
    "COMPANION_HOST_AWAY": ("HOST_AWAY", float),
    "COMPANION_SEAT_AWAY": ("SEAT_AWAY", float),
    "COMPANION_SEAT_MOVE_WAIT": ("SEAT_MOVE_WAIT", float),
    "COMPANION_BOT_DELAY": ("BOT_DELAY", float),
    "COMPANION_BOT_PROCESS": ("BOT_PROCESS", lambda v: v.lower() not in ("0", "no", "false")),
}


def create_app(config: Optional[dict] = None) -> Flask:
    app = Flask(__name__, template_folder=str(_folder("templates")), static_folder=str(_folder("static")),
                static_url_path="/static")
    app.config.update(DEFAULTS)
    for var, (key, conv) in ENV.items():
        if os.environ.get(var):
            app.config[key] = conv(os.environ[var])
    app.config.update(config or {})
    app.json.sort_keys = False
    app.json.compact = True

    # Absolute before the LEDs load: lgpio moves the process into LG_WD when that is set.
    db_path = app.config["DB"] if app.config["DB"] == ":memory:" else os.path.abspath(app.config["DB"])
    leds = app.config["LEDS"]
    if leds is None:
        from companion.pi.leds import make_leds

        leds = make_leds(app.config["LED_PINS"], app.config["LED_ACTIVE_HIGH"],
                         pin_factory=app.config["LED_PIN_FACTORY"], log=app.logger.warning,
                         workdir=os.path.dirname(db_path) if db_path != ":memory:" else None)
    app.extensions["leds"] = leds

    store = Store(db_path)
    store.open()   # a damaged file is moved aside here, and what can be read of it recovered
    def replayed() -> Table:
        table = Table(store, Hub(), leds=leds, host_away=float(app.config["HOST_AWAY"]),
                      move_wait=float(app.config["SEAT_MOVE_WAIT"]), bot_delay=float(app.config["BOT_DELAY"]),
                      bot_process=bool(app.config["BOT_PROCESS"]), seat_away=float(app.config["SEAT_AWAY"]),
                      lobby_limit=int(app.config["LOBBY_LIMIT"]), started_limit=int(app.config["STARTED_LIMIT"]),
                      warmed=app.config["WARMED"])
        table.load()
        return table

    try:
        table = replayed()
    except sqlite3.DatabaseError as e:   # damaged after a clean stop: read it whole, as after a crash
        if not recover.damage(e) or store.checked:
            raise
        store.reopen_checked()
        table = replayed()
    for gid, why in table.broken.items():
        app.logger.error("Game %s could not be replayed from its log and is left out (%s).", gid, why)
    app.extensions["table"] = table
    web.init_app(app)
    return app
