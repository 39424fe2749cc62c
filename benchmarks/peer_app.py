"""The minimal Flask + flask-sock peer bench_peer.py measures the companion against: one page of JSON,
a bid that sends a view of the companion's size to every open socket, on werkzeug's threaded server.
Given a DB, each bid is first made durable in SQLite as the companion's are (WAL, synchronous=FULL, one
COMMIT): the same promise that an acknowledged bid survives a power cut (bench_peer.py --durable-peer).

    python benchmarks/peer_app.py [--db DB] PORT
"""
from __future__ import annotations

import json
import sqlite3
import sys
import threading

from flask import Flask, jsonify
from flask_sock import Sock

app = Flask(__name__)
sock = Sock(app)
clients: set = set()
lock = threading.Lock()
state = {"seq": 0}
db = None
if sys.argv[1] == "--db":
    db = sqlite3.connect(sys.argv[2], isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS bids (seq INTEGER, body TEXT)")   # a restart counts from 0 again
FILLER = "x" * 3000   # about the size of a phone's view in play


def view() -> str:
    return json.dumps({"seq": state["seq"], "phase": "playing", "filler": FILLER})


@app.get("/api/games/current")
def current():
    return jsonify({"id": None, "phase": None})


@app.post("/api/bid")
def bid():
    with lock:
        state["seq"] += 1
        text = view()
        if db is not None:   # durable before anyone is told, as the companion's log
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO bids (seq, body) VALUES (?, ?)", (state["seq"], text))
            db.execute("COMMIT")
        listeners = list(clients)
    for ws in listeners:
        try:
            ws.send(text)
        except Exception:
            pass
    return jsonify({"seq": state["seq"]})


@sock.route("/live")
def live(ws):
    with lock:
        clients.add(ws)
        first = view()
    try:
        ws.send(first)
        while ws.receive() is not None:
            pass
    finally:
        with lock:
            clients.discard(ws)


if __name__ == "__main__":
    app.run("127.0.0.1", int(sys.argv[-1]), threaded=True)
