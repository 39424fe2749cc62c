"""The whole table's memory with Pi seats (issue 39, item 3): a solo game on a Pi Zero 2 W must fit beside its browser.

    .venv/bin/python benchmarks/bench_pi_memory.py [--pi 3] [--sockets 8] [--level strong]

A fresh `companion serve` on 127.0.0.1 (the Pi's pause 0, the timer pace): one person and --pi Pi seats in a
four-player Expert game, --sockets live sockets on it, the person playing random legal moves until the Pi has moved
at least six times (its process up and warm). Then, for the server and every process under it: PSS and RSS from
/proc/<pid>/smaps_rollup, and the command line; the total PSS is what the table costs the Pi's 512 MB. The same
once more without a Pi seat (two people), for the figure without one.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import LiveServer, Phone, choose, create_game  # noqa: E402

COLORS = ("blue", "red", "white", "gray")


def tree(pid: int) -> list[int]:
    """The process and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").iterdir():
            children = Path(f"/proc/{p}/task/{task.name}/children")
            if children.exists():
                todo += [int(c) for c in children.read_text().split()]
    return out


def memory(pid: int) -> tuple[float, float, str]:
    """(PSS MB, RSS MB, command) of one process."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:90]
    return fields["Pss"] / 1024, fields["Rss"] / 1024, cmd


def table(pi: int, sockets: int, level: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "companion.sqlite3", env={"COMPANION_BOT_DELAY": "0"})
        server.start()
        try:
            ann = Phone(server)
            colors = COLORS if pi else COLORS[:2]
            gid = create_game(ann, colors, mode="expert", pace="timer")
            assert ann.post(f"/api/games/{gid}/seats/blue", {"name": "Ann"}).status == 200
            people = [ann]
            for c in colors[1:]:
                if pi:
                    assert ann.post(f"/api/games/{gid}/seats/{c}/pi", {"level": level}).status == 200
                else:
                    p = Phone(server)
                    assert p.post(f"/api/games/{gid}/seats/{c}", {"name": c.title()}).status == 200
                    people.append(p)
            assert ann.post(f"/api/games/{gid}/start").status == 200
            socks = [Phone(server).ws(gid) for _ in range(sockets)]
            rng, moves, end = random.Random(1), 0, time.monotonic() + 300
            while moves < 6 and time.monotonic() < end:
                view = ann.get(f"/api/games/{gid}").json
                if view["phase"] != "playing":
                    break
                mover = next((p for p, c in zip(people, colors) if c == view["to_act"]), None)
                if mover is None:   # a Pi seat's turn
                    time.sleep(0.05)
                    continue
                mine = mover.get(f"/api/games/{gid}").json
                mover.post(f"/api/games/{gid}/actions", dict(choose(mine, rng, 0.2), expect_seq=mine["seq"]))
                moves += 1 if pi else 0.5
            time.sleep(1)
            total = 0.0
            print(f"\n{pi} Pi seat(s) at {level}, {sockets} sockets:" if pi else f"\nno Pi seat, {sockets} sockets:")
            for p in tree(server.proc.pid):
                pss, rss, cmd = memory(p)
                total += pss
                print(f"  pid {p}: PSS {pss:5.1f} MB, RSS {rss:5.1f} MB  {cmd}")
            print(f"  total PSS {total:.1f} MB")
            for s in socks:
                s.close()
        finally:
            server.kill()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pi", type=int, default=3)
    ap.add_argument("--sockets", type=int, default=8)
    ap.add_argument("--level", default="strong")
    a = ap.parse_args()
    table(a.pi, a.sockets, a.level)
    table(0, a.sockets, a.level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
