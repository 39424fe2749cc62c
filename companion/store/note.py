"""The note of the last acknowledged event: a tiny file beside the log, the witness of a lost action.

SQLite drops a damaged last WAL frame without a word; a start that finds the log shorter than this note knows an
acknowledged action was lost and can say which. So the note must be on the disk by the time the action is
acknowledged, as the log is.

Each flush of the disk's cache costs as much as the rest of a bid, and two flushes side by side wait for each
other (the note's doubled a bid's p99: docs/BENCHMARKS.md, "The note of the last action without a flush of its
own"). So where the filesystem is known to allow it, the note is written *direct*: the write goes to the disk
itself, not to the page cache, and returns once the disk has it; the COMMIT that follows flushes the disk's cache
(SQLite fsyncs the WAL at every commit with synchronous=FULL), which makes every write the disk already had
durable, the note's included (the block layer's flush: Documentation/block/writeback_cache_control.rst). The note
is then durable exactly when the log is, with one flush for both. Elsewhere the note is fsynced on its own.
"""
from __future__ import annotations

import errno
import json
import logging
import mmap
import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional

log = logging.getLogger(__name__)
# json.dumps(value, separators=(",", ":")) without building a new encoder at each call: the note is written at
# every bid.
compact = json.JSONEncoder(separators=(",", ":")).encode


def direct_allowed(path: str, mountinfo: Optional[str] = None) -> bool:
    """Whether a direct write of the file at `path` goes to the disk, to be made durable by the log's flush.

    Only on ext4 (the Pi's root filesystem) in its ordered or writeback data mode: there an fdatasync always
    ends with a flush of the disk's cache, and a direct write to a block already allocated reaches the disk
    before returning. With data=journal ext4 quietly writes direct writes through the page cache, and other
    filesystems were not looked at: there the note keeps its own fsync."""
    if not hasattr(os, "O_DIRECT"):
        return False
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8") as f:
                mountinfo = f.read()
        except OSError:
            return False
    real = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    best, fstype, options = "", "", ""
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields, more = left.split(), right.split()
        if not sep or len(fields) < 5 or len(more) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])   # \040 is a space
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fstype, options = point, more[0], more[2]
    return fstype == "ext4" and "data=journal" not in options.split(",")


class Note:
    """The last event acknowledged and whether the server stopped cleanly, in the first sector of its file."""

    SIZE = 512    # one sector: written in place, whole
    BLOCK = 4096  # the file's length and a direct write's: one filesystem block, aligned as a direct write must be

    def __init__(self, db_path: str):
        self.path = db_path + ".last"
        self._fd: Optional[int] = None
        self._failed = False
        self.direct = False    # written direct, made durable by the log's next flush (once opened)
        self._block: Optional[mmap.mmap] = None   # page-aligned, as a direct write needs
        self._beside: Optional[ThreadPoolExecutor] = None   # where the note fsyncs beside a COMMIT (not direct)

    def read(self) -> Optional[dict]:
        try:
            with open(self.path, "rb") as f:
                note = json.loads(f.read(self.SIZE * 2).strip() or b"null")
        except (OSError, ValueError):
            return None
        return note if isinstance(note, dict) else None

    def _open(self) -> int:
        """The file, one whole block long and synced once, so that a direct write is an overwrite in place; its
        descriptor opened direct where `direct_allowed` says so."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        size = os.fstat(fd).st_size
        if size < self.BLOCK:
            os.pwrite(fd, b" " * (self.BLOCK - size), size)
            os.fdatasync(fd)
        if direct_allowed(self.path):
            try:
                direct = os.open(self.path, os.O_RDWR | os.O_DIRECT)
            except OSError:
                return fd
            os.close(fd)
            self._block = mmap.mmap(-1, self.BLOCK)
            self._block.write(b" " * self.BLOCK)
            self.direct = True
            return direct
        return fd

    def write(self, note: dict, durable: bool = True) -> None:
        """Write the note; with `durable` False (a direct note only) the log's COMMIT, next, makes it durable."""
        data = compact(note).encode()
        if len(data) > self.SIZE:
            data = compact(dict(note, body=None)).encode()
        try:
            if self._fd is None:
                self._fd = self._open()
            if self.direct:
                try:
                    self._block[:self.SIZE] = data.ljust(self.SIZE)
                    os.pwrite(self._fd, self._block, 0)
                    if durable:
                        os.fdatasync(self._fd)
                    return
                except OSError as e:
                    if e.errno != errno.EINVAL:
                        raise
                    self._buffered()   # the filesystem refused a direct write after all: the note's own fsync
            os.pwrite(self._fd, data.ljust(self.SIZE), 0)
            os.fdatasync(self._fd)
        except OSError as e:   # the log itself is what counts: a note that cannot be written is only said
            if not self._failed:
                log.warning("The note of the last action (%s) could not be written: %s", self.path, e)
            self._failed = True

    def with_commit(self, note: dict) -> Optional[Future]:
        """The note of an event whose COMMIT comes next, durable by the time that COMMIT is: written direct now
        (the COMMIT's flush covers it; None), or fsynced on its own thread side by side with the COMMIT, so an
        action waits for the slower of the two, not for both (the Future to wait for)."""
        if self._fd is not None and self.direct:
            self.write(note, durable=False)
            return None
        if self._beside is None:
            self._beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="note")
        return self._beside.submit(self.write, note)

    def _buffered(self) -> None:
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR)
        self.direct = False

    def close(self) -> None:
        if self._beside is not None:
            self._beside.shutdown(wait=True)
            self._beside = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._block is not None:
            self._block.close()
            self._block = None
