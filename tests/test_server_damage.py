"""Faults the table survives: a damaged database is moved aside and what can be read of it recovered, a file
removed under the running server is noticed before the next write, and a full disk is said as such."""
from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import FAST
from server_helpers import LiveServer, Phone, choose, create_game, play, seat_and_start


def _playing(server, games: int, seed: int = 5):
    """`games` games started and partly played through the API; returns {gid: (phones, host)}."""
    rng = random.Random(seed)
    out = {}
    for _ in range(games):
        colors = rng.sample(["blue", "red", "white", "gray"], 2)
        phones = {c: Phone(server) for c in colors}
        gid = create_game(phones[colors[0]], colors)
        seat_and_start(gid, phones[colors[0]], phones)
        play(gid, phones, rng, max_actions=rng.randrange(4, 20))
        out[gid] = phones
    return out


def _checkpoint(db: Path) -> None:
    """Everything into the main file (as after a clean stop), so the damage hits the log itself."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _by_game(rows) -> dict:
    out: dict = {}
    for game, seq, kind, body in rows:
        out.setdefault(game, []).append((seq, kind, body))
    return out


def _near(page: bytes, gid: bytes, seq: int, piece: bytes) -> bool:
    """The row's values as SQLite lays them out: `gid`, the seq (no byte for 0 or 1, else one or two bytes, big
    endian), then `piece`. With the seq in, two events of one game with the same body (two passes) never count as one."""
    number = b"" if seq in (0, 1) else seq.to_bytes(1 if seq < 128 else 2, "big")
    return page.find(gid + number + piece) >= 0


def _aside(db: Path) -> list[Path]:
    return sorted(p for p in db.parent.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm")))


def test_a_damaged_header_is_moved_aside_and_every_game_recovered(tmp_path):
    db = tmp_path / "companion.sqlite3"
    server = LiveServer(db, env=FAST)
    server.start()
    games = _playing(server, 6)
    truth = _by_game(server.events())
    # the host of the game on the table counts two spellings as one: the standings' memory, not a game's log
    current = Phone(server).get("/api/games/current").json["id"]
    host = next(iter(games[current].values()))
    assert host.post("/api/names/merge", {"alias": "Bob", "into": "Robert"}).status == 201
    server.kill()
    _checkpoint(db)
    damaged = bytearray(db.read_bytes())
    damaged[:100] = bytes(random.Random(1).randrange(256) for _ in range(100))
    db.write_bytes(damaged)

    server.start()
    try:
        aside = _aside(db)
        assert len(aside) == 1 and aside[0].read_bytes() == bytes(damaged)   # kept exactly as found
        page = Phone(server, lang="de").get("/").body.decode()
        assert "Die Datenbank des Tisches war nicht lesbar" in page and str(aside[0]) in page
        assert "Daraus gerettete Spiele: 6." in page
        assert _by_game(server.events()) == truth             # not one acknowledged event lost
        gid, phones = next(iter(games.items()))
        view = next(iter(phones.values())).view(gid)
        assert view["seq"] == len(truth[gid])
        play(gid, phones, random.Random(9), max_actions=2)    # and the game goes on
        # the merge came through: merging back would now be a loop, and is refused as one
        r = host.post("/api/names/merge", {"alias": "Robert", "into": "Bob"})
        assert r.status == 409 and r.json["code"] == "bad_merge"
    finally:
        server.kill()


def test_damaged_pages_recover_every_readable_game_and_lose_nothing_acknowledged_from_them(tmp_path):
    db = tmp_path / "companion.sqlite3"
    server = LiveServer(db, env=FAST)
    server.start()
    _playing(server, 20)
    truth = _by_game(server.events())
    server.kill()
    _checkpoint(db)
    # Rewritten whole, so no stale copy of a row lingers in a page's free space: the byte search below
    # must count only rows SQLite itself holds (a stale copy is no acknowledged action to recover).
    conn = sqlite3.connect(db)
    conn.execute("VACUUM")
    conn.close()
    data = bytearray(db.read_bytes())
    pages = len(data) // 4096
    rng = random.Random(3)
    hit = sorted(rng.sample(range(2, pages), 3))
    for p in hit:
        data[p * 4096:(p + 1) * 4096] = bytes(rng.randrange(256) for _ in range(4096))
    db.write_bytes(data)

    server.start()
    try:
        assert len(_aside(db)) == 1
        got = _by_game(server.events())
        for gid, events in got.items():
            assert events == truth[gid][:len(events)], gid   # a recovered log is the real log, cut short at most
        whole = sum(got.get(g) == e for g, e in truth.items())
        kept = sum(len(e) for e in got.values())
        print(f"damaged pages {hit} of {pages}: {len(got)}/{len(truth)} games recovered, {whole} whole, "
              f"{kept}/{sum(len(e) for e in truth.values())} events")
        # What a careful reader of the bytes could still get: an event is readable when its game id, kind and
        # body stand together on a page that was not damaged; a game's log is good up to its first unreadable event.
        intact = [bytes(data[p * 4096:(p + 1) * 4096]) for p in range(pages) if p not in hit]
        expected = {}
        for gid, events in truth.items():
            good = []
            for seq, kind, body in events:
                piece = (kind + body).encode()
                if not any(_near(page, gid.encode(), seq, piece) for page in intact):
                    break
                good.append((seq, kind, body))
            if good:
                expected[gid] = good
        diff = {g: (len(got.get(g, [])), len(expected.get(g, []))) for g in set(got) | set(expected)
                if got.get(g) != expected.get(g)}
        assert diff == {}, diff
        assert kept > 0 and whole > 0
        page = Phone(server).get("/").body.decode()
        assert "could not be read" in page and f"Games recovered from it: {len(got)}." in page
        _playing(server, 1, seed=1)   # the table works on the fresh file: a new game, played
    finally:
        server.kill()


def test_a_database_removed_or_replaced_under_the_server_is_noticed_before_the_next_write(tmp_path):
    db = tmp_path / "companion.sqlite3"
    server = LiveServer(db, env=FAST)
    server.start()
    try:
        games = _playing(server, 1)
        gid, phones = next(iter(games.items()))
        spare = tmp_path / "spare.sqlite3"
        shutil.copyfile(db, spare)
        for side in ("", "-wal", "-shm"):
            if Path(f"{db}{side}").exists():
                os.remove(f"{db}{side}")
        view = next(iter(phones.values())).view(gid)
        to_act = phones[view["to_act"]]
        to_act.lang = "fr"
        move = dict(choose(to_act.view(gid), random.Random(2)), expect_seq=view["seq"])
        r = to_act.post(f"/api/games/{gid}/actions", move)
        assert r.status == 503 and r.json["code"] == "db_replaced"
        assert r.json["error"].startswith("Le fichier de la base de données a été supprimé ou remplacé")
        assert to_act.view(gid)["seq"] == view["seq"]          # nothing acknowledged, nothing changed
        shutil.copyfile(spare, db)                              # a file put back in its place is another file
        r = to_act.post(f"/api/games/{gid}/actions", move)
        assert r.status == 503 and r.json["code"] == "db_replaced"
        r = Phone(server).post("/api/games", {"mode": "family", "players": ["blue", "red"],
                                              "removed_districts": ["north", "east"]})
        assert r.status == 503 and r.json["code"] == "db_replaced"
        assert gid in Phone(server).get("/api/games/current").body.decode()   # the failed create left nothing
    finally:
        server.kill()


@pytest.fixture
def small_disk(tmp_path):
    """A 3 MB tmpfs of its own (root only), unmounted afterwards."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(disk: Path) -> Path:
    """A file that takes every byte the disk has left; unlink it for room again."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (65536, 4096, 512, 1):
            try:
                while f.write(b"\0" * size):
                    pass
            except OSError:
                pass
    return filler


def test_a_full_disk_is_said_as_such_and_nothing_acknowledged_is_lost(tmp_path, small_disk):
    db = small_disk / "companion.sqlite3"
    server = LiveServer(db, env=FAST)
    server.log = tmp_path / "server.log"       # the server's own output stays off the full disk
    server.start()
    try:
        colors = ["blue", "red", "white"]
        phones = {c: Phone(server) for c in colors}
        gid = create_game(phones["blue"], colors, removed=["west"])
        seat_and_start(gid, phones["blue"], phones)
        rng = random.Random(4)
        played = play(gid, phones, rng, max_actions=6)
        acked = list(range(phones["blue"].view(gid)["seq"] - len(played) + 1, phones["blue"].view(gid)["seq"] + 1))
        filler = _fill(small_disk)
        refused = None
        for _ in range(200):
            view = phones["blue"].view(gid)
            if view["phase"] != "playing":
                break
            color = view["to_act"]
            mine = phones[color].view(gid)
            move = choose(mine, rng)
            r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
            if r.status == 200:
                acked.append(r.json["seq"])
                continue
            refused = (r, mine, color, move)
            break
        assert refused is not None, "the disk never filled"
        r, mine, color, move = refused
        assert r.status == 507 and r.json["code"] == "disk_full"
        assert r.json["error"] == "The Pi's storage is full: this bid was not recorded."
        assert phones[color].view(gid)["seq"] == mine["seq"]    # nothing changed
        # Every screen is told, not only the phone that was refused (issue 31): the views carry the notice.
        assert {p.view(gid)["storage"]["key"] for p in phones.values()} == {"storage_full"}
        de = Phone(server, lang="de")
        de.jar = phones[color].jar
        de.opener = phones[color].opener
        r = de.post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 507 and r.json["error"] == "Der Speicher des Pi ist voll: dieses Gebot wurde nicht gespeichert."
        filler.unlink()                                         # room again: the same bid goes through
        r = phones[color].post(f"/api/games/{gid}/actions", dict(move, expect_seq=mine["seq"]))
        assert r.status == 200, r
        assert r.json["storage"] is None                        # room again: the notice goes
        acked.append(r.json["seq"])
        server.kill()
        server.start()
        events = server.events(gid)
        assert events[-1][1] == acked[-1] and set(acked) <= {e[1] for e in events}
        assert phones["blue"].view(gid)["seq"] == acked[-1]     # every acknowledged action is there after a restart
        print(f"{len(acked)} actions acknowledged around a full disk; the refusal was 507 disk_full")
    finally:
        server.kill()


def test_a_full_disk_met_by_a_write_beside_the_games_is_said_on_every_screen(tmp_path, small_disk):
    """A layout saved on a full disk is refused to its phone, and every game's screens are told, as for a bid."""
    server = LiveServer(small_disk / "companion.sqlite3", env=FAST)
    server.log = tmp_path / "server.log"
    server.start()
    try:
        colors = ["blue", "red"]
        phones = {c: Phone(server) for c in colors}
        gid = create_game(phones["blue"], colors)
        layout = phones["blue"].view(gid)["tokens"]   # the lobby's layout: a whole one, as a host saves it
        seat_and_start(gid, phones["blue"], phones)
        sockets = {c: p.ws(gid) for c, p in phones.items()}
        seq = phones["blue"].view(gid)["seq"]
        for s in sockets.values():
            s.wait_seq(seq)
        filler = _fill(small_disk)
        for i in range(50):   # the WAL may still take a page or two: until a save is refused
            r = phones["red"].post("/api/layouts", {"name": f"Full {i}", "tokens": layout})
            if r.status != 201:
                break
        assert r.status == 507 and r.json["code"] == "disk_full_change", r
        for color, s in sockets.items():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and (s.last or {}).get("storage") is None:
                time.sleep(0.05)
            assert ((s.last or {}).get("storage") or {}).get("key") == "storage_full", color
        filler.unlink()
        r = phones["red"].post("/api/layouts", {"name": "Room again", "tokens": layout})
        assert r.status == 201, r
        for color, s in sockets.items():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and s.last.get("storage") is not None:
                time.sleep(0.05)
            assert s.last["storage"] is None, color   # room again: every screen's notice goes
    finally:
        server.kill()


def test_a_bid_refused_for_a_full_disk_is_never_named_lost_after_a_crash(tmp_path, small_disk):
    """The note of the last acknowledged action is written beside the log's COMMIT; a COMMIT the disk refuses puts
    it back, so a crash then names no lost action (the refused bid was never acknowledged)."""
    server = LiveServer(small_disk / "companion.sqlite3", env=FAST)
    server.log = tmp_path / "server.log"
    server.start()
    try:
        colors = ["blue", "red"]
        phones = {c: Phone(server) for c in colors}
        gid = create_game(phones["blue"], colors)
        seat_and_start(gid, phones["blue"], phones)
        filler = _fill(small_disk)
        rng = random.Random(9)
        for _ in range(100):
            view = phones["blue"].view(gid)
            mine = phones[view["to_act"]].view(gid)
            r = phones[view["to_act"]].post(f"/api/games/{gid}/actions", dict(choose(mine, rng), expect_seq=mine["seq"]))
            if r.status != 200:
                break
        assert r.status == 507, r
        acknowledged = phones["blue"].view(gid)["seq"]
        server.kill()                                  # no clean stop: the note stays as the last write left it
        filler.unlink()
        server.start()
        view = phones["blue"].view(gid)
        assert view["seq"] == acknowledged
        assert view["storage"] is None, view["storage"]   # not "lost": that bid was refused, never acknowledged
    finally:
        server.kill()
