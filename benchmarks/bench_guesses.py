"""Code guessing against a real server: requests answered per second and codes actually checked per second,
from fresh cookies (a new device every request) on one address and on several. Prints figures; not a test.

    .venv/bin/python benchmarks/bench_guesses.py [--seconds 20] [--addresses 1 4]

Each guess is a wrong seat-move code for a live seat, a wrong display code, or a wrong host-claim
code. "checked" counts answers 403 `bad_code` (the code was compared); "waited" counts 429 `code_wait`
(the guesser is waiting: the code was not looked at). Then the owner's own code is tried once.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from companion import codes  # noqa: E402
from server_helpers import LiveServer, Phone, create_game, seat_and_start  # noqa: E402


def guess(server, path: str, addresses: list[str], seconds: float) -> dict:
    counts = {"answered": 0, "checked": 0, "waited": 0, "other": 0}
    t0 = time.perf_counter()
    i = 0
    while time.perf_counter() - t0 < seconds:
        p = Phone(server, source=addresses[i % len(addresses)])   # a fresh cookie every time
        r = p.post(path, {"code": "ZZZZZZ"})
        i += 1
        counts["answered"] += 1
        code = (r.json or {}).get("code")
        counts["checked" if code == "bad_code" else "waited" if code == "code_wait" else "other"] += 1
    took = time.perf_counter() - t0
    return {k: v for k, v in counts.items()} | {"seconds": round(took, 1),
                                                "answered_per_s": round(counts["answered"] / took, 1),
                                                "checked_per_s": round(counts["checked"] / took, 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--addresses", type=int, nargs="*", default=[1, 4])
    args = ap.parse_args()
    space = len(codes.ALPHABET) ** codes.SEAT_LENGTH
    night = 12 * 3600
    budget = codes.FREE_TRIES + sum(1 for k in range(20) if 2 ** k < codes.MAX_WAIT) + night / codes.MAX_WAIT
    print(f"code space: {len(codes.ALPHABET)}^{codes.SEAT_LENGTH} = {space:,}; game codes "
          f"{len(codes.ALPHABET)}^{codes.GAME_LENGTH} = {len(codes.ALPHABET) ** codes.GAME_LENGTH:,}")
    print(f"codes checked per address in a 12-hour night at most ~{budget:.0f}: "
          f"1 in {space / budget:,.0f} to hit one live code")
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "bench.sqlite3", env={"COMPANION_RATE_LIMIT": "1000",
                                                                "COMPANION_WRITE_RATE_LIMIT": "1000"})
        server.start()
        try:
            ph = {c: Phone(server, source=f"127.0.0.{10 + i}") for i, c in enumerate(("blue", "red"))}
            gid = create_game(ph["blue"], list(ph))
            seat_and_start(gid, ph["blue"], ph)
            ph["red"].ws(gid)
            owner = ph["red"].post(f"/api/games/{gid}/seats/red/code").json["move_codes"]["red"]
            pi = Phone(SimpleNamespace(origin=f"http://localhost:{server.port}", ws_base=""))
            pi.post("/api/table/code")
            base = 100
            for n in args.addresses:
                for what, path in (("seat move", f"/api/games/{gid}/seats/red/move"),
                                   ("display", "/api/table/claim")):
                    addrs = [f"127.0.{base // 250}.{base % 250 + 2 + k}" for k in range(n)]
                    base += n + 1
                    print(f"{what} code, fresh cookies from {n} address(es):", guess(server, path, addrs, args.seconds))
            new = Phone(server, source="127.0.0.99")
            r = new.post(f"/api/games/{gid}/seats/red/move", {"code": owner})
            print("the owner's code afterwards:", r.status, "seated" if r.ok and r.json["you"]["color"] == "red" else r.json)
        finally:
            server.kill()


if __name__ == "__main__":
    main()
