"""The kiosk at login under a real labwc (headless, pixman renderer) in a Debian trixie root: Chromium starts on
/table once, with and without Raspberry Pi OS's XDG autostart line, and a screenshot of the screen (grim) shows
the table display, its QR code readable. The server is a real one on the host's 127.0.0.1 (a chroot shares the
host's network); the root is built once and cached like the container roots (container_helpers)."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import container_helpers as ch
import shots
from conftest import FAST
from server_helpers import LiveServer, Phone, create_game
from test_deploy import PI_OS_AUTOSTART
from test_qr_scan import zbarimg

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(ch.can_run() is not None, reason=str(ch.can_run()))
USER, UID = "ann", 1000
# Raspberry Pi OS's lxsession-xdg-autostart, which Debian lacks: it runs each XDG autostart entry's Exec=
XDG_AUTOSTART = """#!/bin/sh
for f in /etc/xdg/autostart/*.desktop; do
  sh -c "$(sed -n 's/^Exec=//p' "$f") &"
done
"""


class Desktop:
    """The trixie root under a throwaway layer, with what install.sh puts there for the kiosk, and a user."""

    def __init__(self, tmp: Path, pi_os_line: bool):
        self.layer = ch.Overlay(ch.root("trixie-kiosk"))
        self.top = self.layer.merged
        self.tmp = tmp
        self.mounts: list[Path] = []
        self.proc: subprocess.Popen | None = None
        ch._run(["chroot", str(self.top), "useradd", "-m", "-u", str(UID), USER], timeout=120)
        shutil.copy(REPO / "deploy/kiosk.sh", self.top / "usr/local/bin/metropolys-kiosk")
        (self.top / "usr/local/bin/metropolys-kiosk").chmod(0o755)
        (self.top / "etc/xdg/autostart").mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "deploy/metropolys-kiosk.desktop", self.top / "etc/xdg/autostart/metropolys-kiosk.desktop")
        # A chroot may not make user namespaces, which Chromium's sandbox needs; Debian's chromium wrapper reads
        # extra flags from /etc/chromium.d (this is the test's machine, not what install.sh sets up)
        (self.top / "etc/chromium.d").mkdir(parents=True, exist_ok=True)
        (self.top / "etc/chromium.d/zz-test-chroot").write_text('export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --no-sandbox"\n')
        if pi_os_line:
            (self.top / "etc/xdg/labwc").mkdir(parents=True, exist_ok=True)
            (self.top / "etc/xdg/labwc/autostart").write_text(PI_OS_AUTOSTART.replace(
                "/usr/bin/lwrespawn /usr/bin/pcmanfm --desktop --profile LXDE-pi &\n", "").replace(
                "/usr/bin/lwrespawn /usr/bin/wf-panel-pi &\n", "").replace("/usr/bin/kanshi &\n", ""))
            (self.top / "usr/bin/lxsession-xdg-autostart").write_text(XDG_AUTOSTART)
            (self.top / "usr/bin/lxsession-xdg-autostart").chmod(0o755)
        done = subprocess.run(["bash", str(REPO / "deploy/kiosk-autostart.sh"), "add"],
                              env={**os.environ, "ROOT": str(self.top)}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        for kind, where, opts in (("proc", "proc", []), ("bind", "dev", []), ("tmpfs", "dev/shm", []),
                                  ("tmpfs", "tmp", []), ("tmpfs", f"run/user/{UID}", [f"uid={UID},mode=0700"])):
            target = self.top / where
            target.mkdir(parents=True, exist_ok=True)
            cmd = ["mount", "--bind", f"/{where}", str(target)] if kind == "bind" else \
                ["mount", "-t", kind, *(["-o", opts[0]] if opts else []), kind, str(target)]
            ch._run(cmd, timeout=60)
            self.mounts.append(target)

    def login(self, table_url: str) -> None:
        """labwc as the user, as a desktop autologin starts it; its autostart file starts the kiosk."""
        env = ["XDG_RUNTIME_DIR=/run/user/1000", f"HOME=/home/{USER}", "PATH=/usr/local/bin:/usr/bin:/bin",
               "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_HEADLESS_OUTPUTS=1", "WLR_LIBINPUT_NO_DEVICES=1",
               f"COMPANION_TABLE_URL={table_url}"]
        self.log = open(self.tmp / "labwc.log", "w")
        self.proc = subprocess.Popen(["chroot", str(self.top), "runuser", "-u", USER, "--", "env", "-i", *env, "labwc"],
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def chromiums(self) -> list[str]:
        """The command lines of the kiosk browsers running in this root (Chromium's main processes only)."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/root") != str(self.top):
                    continue
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if b"--kiosk" in cmd and not any(a.startswith(b"--type=") for a in cmd):
                    found.append(b" ".join(a for a in cmd if a).decode())
        return found

    def screenshot(self, dest: Path) -> subprocess.CompletedProcess:
        inside = "/tmp/screen.png"
        done = subprocess.run(["chroot", str(self.top), "runuser", "-u", USER, "--", "env", "-i",
                               "XDG_RUNTIME_DIR=/run/user/1000", "WAYLAND_DISPLAY=wayland-0", "grim", inside],
                              capture_output=True, text=True, timeout=60)
        if done.returncode == 0:
            shutil.copy(self.top / inside.lstrip("/"), dest)
        return done

    def describe_screen(self) -> str:
        """What a failed wait saw, in words for the log CI keeps: the screen's size, how much of it is one colour,
        and how many colours it has (a blank or black page, or a page with a QR code's two colours)."""
        inside = "/tmp/screen.ppm"
        done = subprocess.run(["chroot", str(self.top), "runuser", "-u", USER, "--", "env", "-i",
                               "XDG_RUNTIME_DIR=/run/user/1000", "WAYLAND_DISPLAY=wayland-0", "grim", "-t", "ppm",
                               inside], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return f"grim failed: {done.stderr[-300:]}"
        data = (self.top / inside.lstrip("/")).read_bytes()
        magic, width, height, _, pixels = data.split(maxsplit=4)
        width, height = int(width), int(height)
        rgb = [pixels[i:i + 3] for i in range(0, 3 * width * height, 3)]
        counts: dict = {}
        for px in rgb[::7]:
            counts[px] = counts.get(px, 0) + 1
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
        share = ", ".join(f"#{px.hex()} {100 * c / len(rgb[::7]):.0f}%" for px, c in top)
        return f"{magic.decode()} {width}x{height}, {len(counts)} colours, most: {share}"

    def close(self) -> None:
        if self.proc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
            self.log.close()
        # what the user's session left (Chromium's helpers are in their own groups)
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/root") == str(self.top):
                    os.kill(int(pid), signal.SIGKILL)
        time.sleep(1)
        for target in reversed(self.mounts):
            subprocess.run(["umount", "-l", str(target)], capture_output=True)
        self.layer.close()


@pytest.mark.parametrize("pi_os_line", [True, False], ids=["pi-os-autostart", "plain-labwc"])
def test_chromium_starts_once_on_the_table_screen_at_login(tmp_path, pi_os_line):
    server = LiveServer(tmp_path / "companion.sqlite3", env=FAST)
    server.start()
    gid = create_game(Phone(server), ("blue", "red"))  # the table display then shows its join QR
    desktop = Desktop(tmp_path, pi_os_line)
    try:
        desktop.login(f"http://localhost:{server.port}/table")
        shot, seen, deadline = tmp_path / "screen.png", "", time.monotonic() + 240
        tries = {"with a browser": 0, "screenshots": 0, "last grim": ""}
        while time.monotonic() < deadline:
            assert desktop.proc.poll() is None, (tmp_path / "labwc.log").read_text()[-3000:]
            if desktop.chromiums():
                tries["with a browser"] += 1
                grim = desktop.screenshot(shot)
                tries["last grim"] = f"exit {grim.returncode} {grim.stderr[-300:]}"
                if grim.returncode == 0:
                    tries["screenshots"] += 1
                    found = zbarimg(shot)
                    seen = found.stdout.decode()
                    if found.returncode == 0 and f":{server.port}/g/{gid}" in seen:
                        break
            time.sleep(3)
        assert f":{server.port}/g/{gid}" in seen, (
            f"no join QR on the screen ({seen!r}); looked {tries}; the screen: {desktop.describe_screen()}; "
            f"browsers: {desktop.chromiums()}; labwc said:\n{(tmp_path / 'labwc.log').read_text()[-3000:]}")
        time.sleep(3)  # a second kiosk, if any, would be up by now
        browsers = desktop.chromiums()
        assert len(browsers) == 1, browsers
        assert f"http://localhost:{server.port}/table" in browsers[0].split(), browsers
        if shots.folder():
            shutil.copy(shot, Path(shots.folder()) / f"kiosk-labwc-{'pi-os' if pi_os_line else 'plain'}.png")
    finally:
        desktop.close()
        server.kill()
