"""Phones that drop and come back see the same game; a retried bid is applied once."""
from __future__ import annotations

import random
import socket
import struct
import threading

from server_helpers import Phone, choose, create_game, play, seat_and_start, timeless

COLORS = ["blue", "red", "white", "gray"]


def drop_hard(sock) -> None:
    """Pull the plug: the connection is reset, no close frame (a phone leaving the Wi-Fi)."""
    raw = sock.client.sock
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.shutdown(socket.SHUT_RDWR)
    # The client's own thread closes the socket (with the reset); closing it here could hand the
    # same file descriptor to the next connection while that thread still reads it.
    sock.client.thread.join(timeout=5)
    sock.thread.join(timeout=5)


def test_dropped_phones_converge_to_the_same_view(server, phone):
    rng = random.Random(21)
    phones = {c: phone(server) for c in COLORS}
    viewer = phone(server)
    gid = create_game(phones["blue"], COLORS, mode="expert", seed=21)
    seat_and_start(gid, phones["blue"], phones)
    socks = {c: p.ws(gid) for c, p in phones.items()}
    socks["viewer"] = viewer.ws(gid)
    everyone = dict(phones, viewer=viewer)

    for round_ in range(6):
        play(gid, phones, rng, max_actions=rng.randint(3, 12))
        if phones["blue"].view(gid)["phase"] != "playing":
            break
        seq = phones["blue"].view(gid)["seq"]
        for who, s in socks.items():
            assert s.wait_seq(seq)["seq"] == seq
        # Some drop: cleanly, or with the plug pulled; the game goes on without them.
        gone = rng.sample(sorted(socks), 3)
        last_seen = {}
        for i, who in enumerate(gone):
            last_seen[who] = socks[who].last["seq"]
            socks[who].close() if i % 2 else drop_hard(socks[who])
        play(gid, phones, rng, max_actions=rng.randint(1, 8))
        now = phones["blue"].view(gid)["seq"]
        for i, who in enumerate(gone):
            since = last_seen[who] if i != 1 else None      # with ?since, and without
            socks[who] = everyone[who].ws(gid, since=since)
            first = socks[who].wait_seq(0)
            assert first["seq"] == now, (round_, who)        # the whole current view on connect
            assert timeless(first) == timeless(everyone[who].view(gid))

    play(gid, phones, rng)
    for who, s in socks.items():
        final = everyone[who].view(gid)
        assert final["phase"] == "finished"
        assert s.wait_seq(final["seq"]) == final, who


def test_the_same_phone_coming_back_gets_its_seat_and_cards(server, phone):
    rng = random.Random(22)
    phones = {c: phone(server) for c in COLORS[:3]}
    gid = create_game(phones["blue"], COLORS[:3], mode="expert", seed=22)
    seat_and_start(gid, phones["blue"], phones)
    play(gid, phones, rng, max_actions=7)
    before = phones["red"].view(gid)
    back = phone(server)           # a new browser tab, same cookie: the same device
    back.adopt(phones["red"])
    assert timeless(back.view(gid)) == timeless(before)
    sock = back.ws(gid)
    assert sock.wait_seq(before["seq"])["you"] == before["you"]
    stranger = phone(server)       # another device gets no seat and no cards
    assert "you" not in stranger.view(gid)
    assert back.post(f"/api/games/{gid}/seats/red", {"name": "P-red"}).json["you"]["color"] == "red"


def test_a_retried_bid_is_applied_once(server, phone):
    rng = random.Random(23)
    phones = {c: phone(server) for c in COLORS[:2]}
    gid = create_game(phones["blue"], COLORS[:2], seed=23)
    seat_and_start(gid, phones["blue"], phones)
    play(gid, phones, rng, max_actions=4)
    who = phones["blue"].view(gid)["to_act"]
    mine = phones[who].view(gid)
    move = dict(choose(mine, rng, pass_rate=0), expect_seq=mine["seq"])
    events = server.event_count()

    first = phones[who].post(f"/api/games/{gid}/actions", move)
    assert first.status == 200 and first.json["seq"] == mine["seq"] + 1
    # The phone never saw that answer (Wi-Fi hiccup) and sends the same bid again.
    again = phones[who].post(f"/api/games/{gid}/actions", move)
    assert again.status == 409 and again.json["code"] == "stale", again
    assert again.json["view"]["seq"] == mine["seq"] + 1
    assert timeless(again.json["view"]) == timeless(phones[who].view(gid))
    assert server.event_count() == events + 1
    assert phones[who].view(gid)["actions"] == mine["actions"] + 1


def test_two_racing_copies_of_a_bid_apply_once(server, phone):
    rng = random.Random(24)
    phones = {c: phone(server) for c in COLORS[:2]}
    gid = create_game(phones["blue"], COLORS[:2], seed=24)
    seat_and_start(gid, phones["blue"], phones)
    for _ in range(10):
        who = phones["blue"].view(gid)["to_act"]
        mine = phones[who].view(gid)
        move = dict(choose(mine, rng, pass_rate=0.2), expect_seq=mine["seq"])
        twin = Phone(server)
        twin.adopt(phones[who])
        events = server.event_count()
        replies = [None, None]
        barrier = threading.Barrier(2)

        def send(i, p):
            barrier.wait()
            replies[i] = p.post(f"/api/games/{gid}/actions", move)

        threads = [threading.Thread(target=send, args=(i, p)) for i, p in enumerate((phones[who], twin))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r.status for r in replies) == [200, 409], replies
        assert server.event_count() == events + 1
