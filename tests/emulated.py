"""What the emulated machines (tests/pi_vm.py, tests/hotspot_vm.py) and the arm64 container check share: a check
run once in the background, a QEMU process and the socket the guest talks on, waiting for a line from inside,
powering off and booting again as a new process, and a root made to boot as if for the hundredth time."""
from __future__ import annotations

import contextlib
import importlib
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable


class _Helpers:
    """container_helpers, imported when first used: it imports this module for Background itself."""

    def __getattr__(self, name: str):
        return getattr(importlib.import_module("container_helpers"), name)


ch = _Helpers()


class Background:
    """A check run once in a thread of its own while other tests run; `result()` waits for it and raises what it
    raised. Subclasses write `work()`, and `kill()` for what `stop()` must end (a QEMU, an nspawn)."""

    name = "check"

    def __init__(self):
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._guarded, name=self.name, daemon=True)
        self.thread.start()

    def _guarded(self) -> None:
        try:
            self.work()
        except BaseException as e:  # noqa: BLE001 (handed to the tests by result())
            self.error = e

    def work(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        """End what the check is waiting on, so that stop() need not wait for it."""

    def result(self):
        self.thread.join()
        if self.error:
            raise self.error
        return self

    def stop(self) -> None:
        """At the end of the session: a check nobody waited for (its tests deselected or not reached) is ended."""
        if self.thread.is_alive():
            self.kill()
        self.thread.join(timeout=60)


class Once:
    """The one background check of a kind in this session: start() makes it the first time, stop_all() ends it."""

    def __init__(self, make: Callable[[], Background]):
        self.make, self.made = make, None

    def start(self) -> Background:
        if self.made is None:
            self.made = self.make()
        return self.made

    def stop_all(self) -> None:
        if self.made is not None:
            self.made.stop()


class Qemu:
    """One QEMU process for one boot, in a session of its own (ch.hurry weighs it fairly against the suite), and the
    unix socket its guest talks on (a serial port, or a virtio-serial agent). A new boot is a new process."""

    def __init__(self, workdir: Path):
        self.dir = workdir
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.console = workdir / "console.log"
        self._buffer = b""

    def launch(self, cmd: list[str], talk: Path, connect_timeout: float = 30) -> None:
        """Start QEMU and connect to the guest's socket `talk`, which QEMU itself serves."""
        self.started = time.monotonic()
        self._buffer = b""
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        ch._running.add(self.proc)
        ch.hurry(self.proc)
        deadline = time.monotonic() + connect_timeout
        self.sock = socket.socket(socket.AF_UNIX)
        while True:
            try:
                self.sock.connect(str(talk))
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"qemu did not start: {self.proc.stdout.read().decode(errors='replace')}")
                time.sleep(0.05)

    def next_line(self, deadline: float, said: Callable[[], str], keep: Callable[[bytes], None] | None = None) -> bytes:
        """The guest's next whole line by `deadline` (time.monotonic), each chunk read handed to `keep` too (a log);
        a TimeoutError saying said() (and the console's end), or a RuntimeError when QEMU or its socket is gone."""
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{said()}; console:\n{self.tail()}")
            self.sock.settimeout(min(left, 1))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"qemu exited {self.proc.returncode}; console:\n{self.tail()}") from None
                continue
            if not chunk:
                raise RuntimeError(f"the guest's port closed; console:\n{self.tail()}")
            if keep:
                keep(chunk)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def cpu_seconds(self) -> float:
        """The CPU QEMU has used so far (its emulated CPU's work, and its own)."""
        with contextlib.suppress(OSError, AttributeError):
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return 0.0

    def powered_off(self, timeout: float = 120) -> None:
        """Wait for the guest to power itself off (the plug pulled after a sync); the next boot is a new process, as
        a Pi boots its SD card again. A reboot inside QEMU cost the Wi-Fi VM 80 s of CPU to the agent's answer, a
        new process 49 s, as its first boot."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the VM did not power off in {timeout:.0f} s; console:\n{self.tail()}") from None
        ch._running.discard(self.proc)
        with contextlib.suppress(OSError):
            self.sock.close()

    def tail(self, chars: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return self.console.read_bytes()[-chars:].decode(errors="replace")
        return ""

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            ch._killpg(self.proc)

    def close(self) -> None:
        if self.proc:
            self.kill()
            self.proc.wait(timeout=30)
            ch._running.discard(self.proc)
        with contextlib.suppress(Exception):
            self.sock.close()


def mask(top: Path, units: list[str]) -> None:
    """Units the emulated machine never starts (they would wait for hardware QEMU lacks, or cost boot time)."""
    for unit in units:
        (top / "etc/systemd/system" / unit).unlink(missing_ok=True)
        (top / "etc/systemd/system" / unit).symlink_to("/dev/null")


def enable(top: Path, units: list[str]) -> None:
    """Units in /etc/systemd/system started at boot (multi-user.target wants them)."""
    wants = top / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    for unit in units:
        (wants / unit).unlink(missing_ok=True)
        (wants / unit).symlink_to(f"/etc/systemd/system/{unit}")


def booted_before(top: Path) -> None:
    """The root boots as a Pi does for the hundredth time, not its first: with the caches /etc and /var hold up to
    date (ldconfig run beforehand), ldconfig.service, the hardware database and the catalog update
    (ConditionNeedsUpdate=) stay quiet, as systemd-update-done would have left them; minutes of emulated CPU
    otherwise."""
    usr = (top / "usr").stat().st_mtime_ns
    for d in ("etc", "var"):
        done = top / d / ".updated"
        done.write_text(f"TIMESTAMP_NSEC={usr // 1000}\n")
        os.utime(done, ns=(usr, usr))


def ext4_image(dest: Path, tree: Path, label: str, size: int) -> Path:
    """A raw ext4 disk of `size` bytes holding `tree` (mke2fs -d: no loop device, no mount)."""
    with open(dest, "wb") as f:
        f.truncate(size)
    ch._run(["mke2fs", "-q", "-t", "ext4", "-L", label, "-E", "root_owner=0:0", "-d", str(tree), str(dest)],
            timeout=900)
    return dest
