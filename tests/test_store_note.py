"""The note of the last acknowledged event, written direct where the log's own flush makes it durable.

What a crash, a damaged WAL frame and a clean stop do with the note is proved through the real server in
test_server_storage.py and test_server_damage.py; here, how the note is written and when it may skip its own fsync.
"""
from __future__ import annotations

import json
import os
import time

import pytest

from companion.store import note as note_module
from companion.store.db import Store
from companion.store.note import Note, direct_allowed

# Lines of /proc/self/mountinfo as Linux writes them (proc(5)): the mount point is the fifth field, the filesystem
# type and the super options follow the " - ".
MOUNTS = """\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,errors=remount-ro
30 22 0:26 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k
31 22 179:2 / /srv/journal rw,relatime shared:6 - ext4 /dev/mmcblk0p2 rw,data=journal
32 22 179:3 / /srv/my\\040games rw,relatime shared:7 - ext4 /dev/mmcblk0p3 rw
33 22 0:40 / /mnt/nfs rw,relatime shared:8 - nfs4 server:/x rw,vers=4.2
"""


@pytest.mark.parametrize("path, allowed", [
    ("/var/lib/metropolys/companion.sqlite3", True),     # ext4, ordered: the Pi's root filesystem
    ("/tmp/companion.sqlite3", False),                   # tmpfs: no disk to write to directly
    ("/srv/journal/companion.sqlite3", False),           # ext4 data=journal writes a direct write through the cache
    ("/srv/my games/companion.sqlite3", True),           # a mount point with a space, as mountinfo escapes it
    ("/mnt/nfs/companion.sqlite3", False),               # another filesystem: never looked at, so its own fsync
    ("/tmpfoo/companion.sqlite3", True),                 # /tmpfoo is on /, not inside /tmp
])
def test_a_direct_note_only_where_ext4_flushes_at_every_fdatasync(path, allowed):
    assert direct_allowed(path, MOUNTS) is allowed


def _fsyncs(monkeypatch) -> list:
    """The fsyncs the note module asks for (SQLite's own, in C, are not among them), by descriptor."""
    seen = []
    real = os.fdatasync

    def counting(fd):
        seen.append(fd)
        return real(fd)
    monkeypatch.setattr(note_module.os, "fdatasync", counting)
    return seen


def _append(store: Store, seq: int) -> None:
    store.append("G1", seq, "action", {"player": "blue", "bid": "C01", "value": seq})


def test_on_ext4_the_note_is_written_direct_and_the_commit_flushes_it(tmp_path, monkeypatch):
    db = str(tmp_path / "companion.sqlite3")
    if not direct_allowed(db):
        pytest.skip(f"{tmp_path} is not on ext4 in ordered or writeback mode: the note keeps its own fsync there "
                    "(the next test)")
    store = Store(db)
    store.open()
    note = store.note
    assert note.direct
    flags = int(dict(line.split(":", 1) for line in open(f"/proc/self/fdinfo/{note._fd}").read().splitlines())
                ["flags"], 8)
    assert flags & os.O_DIRECT
    fsyncs = _fsyncs(monkeypatch)
    for seq in range(1, 6):
        _append(store, seq)
        on_disk = json.loads(open(note.path, "rb").read())
        assert on_disk == {"game": "G1", "seq": seq, "kind": "action", "clean": False,
                           "body": {"player": "blue", "bid": "C01", "value": seq}}
    assert fsyncs == []    # no flush of its own: the COMMIT's fsync of the WAL made it durable with the event
    assert os.path.getsize(note.path) == Note.BLOCK
    fd = note._fd
    store.close()
    assert json.loads(open(note.path, "rb").read())["clean"] is True
    assert fsyncs == [fd]    # a clean stop, with no COMMIT after it, is flushed by the note itself


def test_a_direct_note_is_on_the_disk_before_the_commit_that_flushes_it_however_slow_its_write(tmp_path, monkeypatch):
    """The COMMIT's flush makes the direct note durable only if the disk had the note's write by then, however slow
    that write is (here 50 ms). (Overlapping it with the statements on a thread of its own was tried: on one core
    the hand-off cost more than the overlap saved, docs/BENCHMARKS.md.)"""
    db = str(tmp_path / "companion.sqlite3")
    if not direct_allowed(db):
        pytest.skip(f"{tmp_path} is not on ext4 in ordered or writeback mode")
    store = Store(db)
    store.open()
    _append(store, 1)   # the note's file opened (and found direct) at the first
    assert store.note.direct
    order = []
    real = os.pwrite

    def slow(fd, data, offset):
        if fd == store.note._fd:
            time.sleep(0.05)
            done = real(fd, data, offset)
            order.append("note written")
            return done
        return real(fd, data, offset)
    monkeypatch.setattr(note_module.os, "pwrite", slow)
    store.conn.set_trace_callback(lambda sql: order.append(sql.split()[0]))
    _append(store, 2)
    store.conn.set_trace_callback(None)
    assert order.index("note written") < order.index("COMMIT"), order
    assert json.loads(open(store.note.path, "rb").read())["seq"] == 2
    store.close()


def test_elsewhere_the_note_keeps_its_own_fsync_beside_the_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(note_module, "direct_allowed", lambda path: False)
    store = Store(str(tmp_path / "companion.sqlite3"))
    store.open()
    assert not store.note.direct
    fsyncs = _fsyncs(monkeypatch)
    for seq in range(1, 4):
        _append(store, seq)
        assert json.loads(open(store.note.path, "rb").read())["seq"] == seq
    assert len(fsyncs) == 3 and set(fsyncs) == {store.note._fd}
    store.close()


def test_a_note_written_before_the_direct_note_is_read_and_kept(tmp_path):
    """A Pi updated from the 512-byte note: its last event is still compared with the log at the first start."""
    db = str(tmp_path / "companion.sqlite3")
    store = Store(db)
    store.open()
    _append(store, 1)
    store.close()
    old = {"game": "G1", "seq": 2, "kind": "action", "body": None, "clean": False}
    with open(db + ".last", "wb") as f:
        f.write(json.dumps(old).encode().ljust(512))
    again = Store(db)
    again.open()
    assert again.lost == {"game": "G1", "seq": 2, "kind": "action", "body": None}   # the log has 1: 2 was lost
    assert os.path.getsize(db + ".last") == Note.BLOCK
    assert json.loads(open(db + ".last", "rb").read())["seq"] == 2
    again.close()
