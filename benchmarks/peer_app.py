"""The minimal Flask + flask-sock peer bench_peer.py measures the companion against: one page of JSON,
a bid that sends a view of the companion's size to every open socket, on werkzeug's threaded server.

    python benchmarks/peer_app.py PORT
"""
from __future__ import annotations

import json
import sys
import threading

from flask import Flask, jsonify
from flask_sock import Sock

app = Flask(__name__)
sock = Sock(app)
clients: set = set()
lock = threading.Lock()
state = {"seq": 0}
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
    app.run("127.0.0.1", int(sys.argv[1]), threaded=True)
