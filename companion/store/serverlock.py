"""One server per database: an fcntl lock on a file beside it (`<db>.lock`), held while the server runs.

The lock goes with the process however it ends (the kernel drops it on exit, even after SIGKILL), so a stale
file never keeps a server from starting. The file's text says who holds it, for the sentence a second server
prints."""
from __future__ import annotations

import errno
import fcntl
import os
import time
from typing import Optional


class HeldElsewhere(Exception):
    """Another server holds this database; str() is the sentence to print."""


def take(db_path: str, port: int) -> Optional[int]:
    """Lock the database for this process (the open file descriptor, kept until exit), or raise HeldElsewhere.
    An in-memory database needs no lock (None)."""
    if db_path == ":memory:":
        return None
    path = db_path + ".lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        # A folder the server may not write (read-only, or no such folder): the store says so in its own
        # words at open, and the pages show it; no second server could write there either.
        return None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno not in (errno.EACCES, errno.EAGAIN):
            os.close(fd)   # a file system without locks: serve as before, unlocked
            return None
        holder = os.read(fd, 200).decode("utf-8", "replace").strip()
        os.close(fd)
        raise HeldElsewhere(refusal(db_path, holder)) from None
    try:   # who holds it, for the sentence (a full disk keeps the lock, without the text)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {port} {int(time.time())}\n".encode(), 0)
    except OSError:
        pass
    return fd


def refusal(db_path: str, holder: str) -> str:
    """The sentence for a second server: which process and port serve this database, since when."""
    who = "another Metropolys companion"
    parts = holder.split()
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        pid, port, since = parts
        when = time.strftime("%H:%M", time.localtime(int(since)))
        who = f"another Metropolys companion (process {pid}, port {port}, running since {when})"
    return (f"Metropolys companion is already running on {db_path}: {who} serves it. Use that one (its join URL "
            f"is in its output), stop it first (Ctrl-C where it runs), or start this one with another --db.")
