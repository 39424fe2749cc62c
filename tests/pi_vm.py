"""An emulated Raspberry Pi 3 (QEMU's raspi3b) running Debian trixie arm64 with the Pi's own GPIO driver
(pinctrl-bcm2835): the companion's LEDs checked down to the GPIO level register the host reads from QEMU.

Built once and cached beside the container roots (see container_helpers): the arm64 root (mmdebstrap under
qemu-user), a venv layer holding the project's dependencies with lgpio built from PyPI's source package (no
cp313 aarch64 wheel exists), and the kernel, initrd and device tree taken from that root. Each run makes a
throwaway SD image of root + venv + this checkout, boots it with no network, and talks to tests/pi_check.py
inside over the Pi's serial port while reading the GPIO registers through QEMU's QMP socket.

Run `python tests/pi_vm.py` (as root) to build the caches and do one run, printing what it saw."""
from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import container_helpers as ch  # noqa: E402
import cross_build  # noqa: E402
import emulated  # noqa: E402

ROOT_NAME = "trixie-arm64-pi"
APP = "/opt/metropolys-companion"
GPLEV0 = 0x3F200034  # BCM2837 GPIO pin level register 0 (GPIO 0-31), as the Pi 3 maps its peripherals
REVISION = "0xa02082"  # Raspberry Pi 3 Model B, as the firmware writes it into /system/linux,revision
# what QEMU's raspi3b does not emulate, and whose drivers would only wait and complain at boot
BLACKLIST = "vc4,v3d,vchiq,bcm2835_mmal_vchiq,bcm2835_v4l2,snd_bcm2835,brcmfmac,brcmutil,hci_uart,btbcm,bluetooth," \
            "raspberrypi_hwmon,bcm2835_thermal,dwc2,lan78xx,smsc95xx"
IMAGE_BYTES = 2 << 30  # QEMU wants an SD card of a power-of-two size


def root_path() -> Path:
    """Where the arm64 root is cached (container_helpers.root builds it there)."""
    return ch.root_path(ROOT_NAME)


# install.sh's commands for the venv and the locks (the project itself comes with each run's checkout), but that
# nothing is byte-compiled under emulation: that is done natively afterwards, as pip would have done it
# (cross_build.byte_compile). `python3 -m venv` installs pip with ensurepip, which runs pip from Debian's pip wheel
# to install that wheel, compiling as it goes (ensurepip drops every PIP_ variable): 111 s of emulated CPU, against
# 2 s for the venv without pip. So the venv is made --without-pip, and pip installed into it as ensurepip does (the
# venv's python3 running pip from Debian's wheel, pip/__main__.py provides for it, to install pip from the wheels'
# folder), with --no-compile: the same files (pyvenv.cfg's `command` line says --without-pip).
VENV_SCRIPT = f"""set -e
stamp() {{ echo "@@ $(date +%s) $1"; }}
stamp start
python3 -m venv --without-pip --system-site-packages {APP}/.venv
wheel=$(echo /usr/share/python-wheels/pip-*.whl)
{APP}/.venv/bin/python3 "$wheel/pip" install --no-compile --no-cache-dir --no-index --disable-pip-version-check \\
    --find-links /usr/share/python-wheels --upgrade pip
stamp "python3 -m venv, pip from Debian's wheel"
py={APP}/.venv/bin/python
export PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheelhouse PIP_DISABLE_PIP_VERSION_CHECK=1
$py -m pip install --no-compile --require-hashes -r /wheelhouse/run.txt
stamp "pip install run.txt"
PYPI=1 $py -m pip install --no-compile --no-binary=lgpio --no-build-isolation --use-pep517 --require-hashes \\
    -r /wheelhouse/pi.txt
stamp "pip install pi.txt (lgpio compiled)"
cd /tmp  # lgpio leaves its notification pipe where it is imported
$py -c 'import lgpio, gpiozero, importlib.metadata as m; print("lgpio", lgpio.__file__, "gpiozero", m.version("gpiozero"))'
"""


def venv_path(base: Path) -> Path:
    return ch.CACHE / f"pi-venv-{ch._key(base.name, ch._locks_text(), VENV_SCRIPT, cross_build.COMPILE)}"


def boot_path(base: Path) -> Path:
    return ch.CACHE / f"pi-boot-{ch._key(base.name, REVISION, 'boot 3')}"


def cached() -> bool:
    """Whether the root, the venv layer and the boot files are all built (a run then takes minutes, not an hour)."""
    base = root_path()
    return all((p / ".complete").exists() for p in (base, venv_path(base), boot_path(base)))


def venv_layer() -> Path:
    """A cached overlay layer holding /opt/metropolys-companion/.venv with the project's dependencies (not the
    project: each run brings the checkout), gpiozero 2 over Debian's python3-gpiozero 1.6, lgpio compiled from
    its source package in the arm64 root under qemu-user, with the same pip commands install.sh runs."""
    base = ch.root(ROOT_NAME)
    key = ch._key(base.name, ch._locks_text(), "venv 2")
    path = venv_path(base)
    if (path / ".complete").exists():
        return path
    with ch._locked("pi-venv"):
        if (path / ".complete").exists():
            return path
        wheels = ch.CACHE / f"pi-wheels-{key}"
        if not (wheels / ".complete").exists():
            shutil.rmtree(wheels, ignore_errors=True)
            work = Path(tempfile.mkdtemp(prefix=".pi-wheels.", dir=ch.CACHE))
            run, pi = ch.REPO / "requirements/run.txt", ch.REPO / "requirements/pi.txt"
            ch._download_for(ch.RECIPES[ROOT_NAME], ["-r", str(run)], work)
            # PyPI has no lgpio wheel for CPython 3.13 on aarch64: its source package, as install.sh falls back to
            ch._run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-cache-dir",
                     "--no-deps", "--no-binary=:all:", "--dest", str(work), "-r", str(pi)], timeout=600)
            for lock in (run, pi):
                shutil.copy(lock, work / lock.name)
            (work / ".complete").write_text("run.txt pi.txt\n")
            work.rename(wheels)

        def build(merged: Path) -> str:
            started = time.monotonic()
            (merged / "wheelhouse").mkdir()
            ch._run(["mount", "--bind", "-o", "ro", str(wheels), str(merged / "wheelhouse")], timeout=60)
            try:
                out = ch._run(["nice", "-n", "10", "chroot", str(merged), "env", "-i",
                               "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "PIP_NO_CACHE_DIR=1", "bash", "-c",
                               VENV_SCRIPT], timeout=3600).stdout
            finally:
                subprocess.run(["umount", str(merged / "wheelhouse")], capture_output=True)
            (merged / "wheelhouse").rmdir()
            stamps = [line.split(" ", 2)[1:] for line in out.splitlines() if line.startswith("@@ ")]
            note = "".join(f"{int(b[0]) - int(a[0])} s {b[1]}\n" for a, b in zip(stamps, stamps[1:]))
            t = time.monotonic()
            site = next(merged.glob(f"{APP.lstrip('/')}/.venv/lib/python3*/site-packages"))
            modules = sorted("/" + str(f.relative_to(merged)) for f in site.rglob("*.py"))
            helper = cross_build.native(base, ch.RECIPES[ROOT_NAME]["release"])
            cross_build.byte_compile(merged, helper, modules)
            note += (f"{time.monotonic() - t:.0f} s {len(modules)} modules byte-compiled "
                     f"({'natively' if helper else 'emulated'})\n")
            return f"{time.monotonic() - started:.0f} s to build\n{note}"

        ch.cached_layer(base, path, build)
    return path


def boot_files() -> Path:
    """The root's kernel (a plain arm64 Image), its initrd and its Pi 3 device tree with the board revision the
    Pi's firmware would add (gpiozero recognises the board by it), cached beside the root."""
    base = ch.root(ROOT_NAME)
    path = boot_path(base)
    if (path / ".complete").exists():
        return path
    with ch._locked("pi-boot"):
        if (path / ".complete").exists():
            return path
        work = Path(tempfile.mkdtemp(prefix=".pi-boot.", dir=ch.CACHE))
        kernel = sorted((base / "boot").glob("vmlinuz-*"))[-1]
        version = kernel.name.removeprefix("vmlinuz-")
        shutil.copy(kernel, work / "Image")
        initrd = base / "boot" / f"initrd.img-{version}"
        if initrd.exists():  # made by the kernel package's own hook, with the recipe's modules
            shutil.copy(initrd, work / "initrd")
        else:  # the root's build left it to here (container_helpers.RECIPES, "native"): made once, the same way
            layer = ch.Overlay(base)  # the cached root stays as built
            try:
                ch._run(["nice", "-n", "10", "chroot", str(layer.merged), "mkinitramfs", "-o", "/initrd", version],
                        timeout=1800)
                shutil.copy(layer.merged / "initrd", work / "initrd")
            finally:
                layer.close()
        dtb = work / "pi3.dtb"
        shutil.copy(base / f"usr/lib/linux-image-{version}/broadcom/bcm2837-rpi-3-b.dtb", dtb)
        ch._run(["fdtput", "-c", str(dtb), "/system"], timeout=60)
        ch._run(["fdtput", "-t", "x", str(dtb), "/system", "linux,revision", REVISION], timeout=60)
        # the Bluetooth chip on the PL011 would take that UART over (serdev): the console and the test need it
        ch._run(["fdtput", "-r", str(dtb), "/soc/serial@7e201000/bluetooth"], timeout=60)
        (work / ".complete").write_text(version + "\n")
        shutil.rmtree(path, ignore_errors=True)
        work.rename(path)
    return path


def prepare() -> tuple[Path, Path]:
    """Everything cached that a run needs: (venv layer, boot files); builds what is missing (long, first time): the
    root, then the venv layer and the boot files side by side (each is one emulated process, and there are two
    cores)."""
    ch.root(ROOT_NAME)
    with concurrent.futures.ThreadPoolExecutor(1) as beside:
        boot = beside.submit(boot_files)
        return venv_layer(), boot.result()


# Units that would hold the serial port or wait for hardware QEMU lacks
MASKED = ["serial-getty@ttyAMA0.service", "getty@tty1.service", "systemd-networkd-wait-online.service",
          "systemd-timesyncd.service", "apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_reap.service",
          "man-db.timer", "fstrim.timer",
          # gettys on tty2-6 for a machine without D-Bus, and modules for hardware the Pi 3 lacks
          "getty-static.service", "modprobe@drm.service", "modprobe@efi_pstore.service", *ch.UNUSED_AT_BOOT]

# install.sh's steps after the venv (tests/test_deploy_containers.py runs install.sh itself under systemd):
# the service user in the gpio group, the GPIO chips' udev rule, state, settings, the unit, enabled
INSTALL = f"""set -e
cd {APP}
groupadd --system gpio
useradd --system --user-group --groups gpio --home-dir /var/lib/metropolys-companion --no-create-home \\
    --shell /usr/sbin/nologin metropolys
install -D -m 0644 deploy/metropolys-gpio.rules /etc/udev/rules.d/60-metropolys-gpio.rules
install -d -m 0750 -o metropolys -g metropolys /var/lib/metropolys-companion
install -D -m 0640 -o root -g metropolys deploy/companion.default /etc/default/metropolys-companion
install -D -m 0644 deploy/metropolys-companion.service /etc/systemd/system/metropolys-companion.service
systemctl enable metropolys-companion.service
.venv/bin/python -m compileall -q companion  # as pip's install of the project does: the service may not write
ldconfig
"""

CHECK_UNIT = """[Unit]
Description=The companion's GPIO check, talking to the test on the host over the serial port

[Service]
Type=oneshot
ExecStart=/usr/bin/python3 /root/pi_check.py /dev/ttyAMA0
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
"""


def make_image(dest: Path, venv: Path) -> Path:
    """An SD image of the root, the venv layer and this checkout (as a clone in /root), made with mke2fs -d."""
    base = ch.root(ROOT_NAME)
    overlay = ch.Overlay(f"{venv}:{base}")
    try:
        top = overlay.merged
        clone = ch.source_copy(top / "root/metropolys-companion")
        shutil.copytree(clone, top / APP.lstrip("/"), symlinks=True, dirs_exist_ok=True)
        site = next((top / APP.lstrip("/")).glob(".venv/lib/python3*/site-packages"))
        (site / "metropolys-companion.pth").write_text(APP + "\n")  # the checkout, as an editable install has it
        script = top / APP.lstrip("/") / ".venv/bin/companion"
        script.write_text(f"#!{APP}/.venv/bin/python\nimport sys\nfrom companion.cli import main\nsys.exit(main())\n")
        script.chmod(0o755)
        ch._run(["chroot", str(top), "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "bash", "-c", INSTALL],
                timeout=600)
        shutil.copy(Path(__file__).with_name("pi_check.py"), top / "root/pi_check.py")
        (top / "etc/systemd/system/pi-check.service").write_text(CHECK_UNIT)
        emulated.enable(top, ["pi-check.service"])
        emulated.mask(top, MASKED)
        emulated.booted_before(top)   # ldconfig ran in INSTALL above
        (top / "etc/fstab").write_text("LABEL=root / ext4 rw,noatime 0 1\n")
        (top / "etc/hostname").write_text("metropolys-pi\n")
        return emulated.ext4_image(dest / "sd.img", top, "root", IMAGE_BYTES)
    finally:
        overlay.close()


class QMP:
    """QEMU's machine protocol on a unix socket: here only to read guest physical memory (the GPIO registers)."""

    def __init__(self, path: Path, timeout: float = 30):
        self.sock = socket.socket(socket.AF_UNIX)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock.connect(str(path))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.file = self.sock.makefile("rw")
        self._reply()  # greeting
        self.command("qmp_capabilities")

    def _reply(self) -> dict:
        while True:
            msg = json.loads(self.file.readline())
            if "event" not in msg:
                return msg

    def command(self, name: str, **arguments) -> object:
        self.file.write(json.dumps({"execute": name, "arguments": arguments}) + "\n")
        self.file.flush()
        reply = self._reply()
        if "error" in reply:
            raise RuntimeError(f"QMP {name}: {reply['error']}")
        return reply["return"]

    def word(self, address: int) -> int:
        """One 32-bit word of guest physical memory, as the monitor's `xp /1wx` shows it."""
        text = self.command("human-monitor-command", **{"command-line": f"xp /1wx {address:#x}"})
        return int(text.split(":")[1].split()[0], 16)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class PiVM(emulated.Qemu):
    """One boot of the emulated Pi 3 from a throwaway SD image; `lines` come from tests/pi_check.py inside."""

    def boot(self, image: Path, boot: Path) -> None:
        serial, qmp = self.dir / "serial.sock", self.dir / "qmp.sock"
        cmd = ["qemu-system-aarch64", "-M", "raspi3b", "-accel", "tcg,thread=single",
               "-kernel", str(boot / "Image"), "-initrd", str(boot / "initrd"), "-dtb", str(boot / "pi3.dtb"),
               "-append", "console=ttyAMA0 root=LABEL=root rootfstype=ext4 rw rootwait quiet loglevel=3 "
                          f"systemd.show_status=0 modprobe.blacklist={BLACKLIST}",
               "-drive", f"file={image},if=sd,format=raw",
               "-serial", f"unix:{serial},server=on,wait=on", "-qmp", f"unix:{qmp},server=on,wait=off",
               "-display", "none", "-monitor", "none", "-nic", "none", "-no-reboot"]
        self.launch(cmd, serial)
        self.qmp = QMP(qmp)
        self._log = open(self.console, "wb")

    def level(self) -> int:
        return self.qmp.word(GPLEV0)

    def read_line(self, timeout: float) -> str:
        """The next line pi_check.py marked with '@@ ' (kernel and systemd lines go to the console log only)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.next_line(deadline, lambda: f"no word from inside the Pi for {timeout:.0f} s",
                                  keep=self._logged).decode(errors="replace").strip("\r")
            if "@@ " in text:
                return text.split("@@ ", 1)[1]

    def _logged(self, chunk: bytes) -> None:
        self._log.write(chunk)
        self._log.flush()

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode() + b"\n")

    def close(self) -> None:
        super().close()
        for closing in ("qmp", "_log"):
            with contextlib.suppress(Exception):
                getattr(self, closing).close()


PINS = {"blue": 17, "red": 27, "white": 22, "gray": 23}  # deploy/companion.default's


def lit(level: int) -> frozenset[str]:
    return frozenset(c for c, pin in PINS.items() if level >> pin & 1)


class Run(emulated.Background):
    """One whole check in a background thread: caches, image, boot, then pi_check.py's game and policy checks,
    the host reading the GPIO level register whenever the Pi says a move is done. `result()` waits for it."""
    TIMEOUT = 600  # s for any one step inside the emulated Pi (its first answer at boot is the slowest)
    name = "pi3 vm"

    def __init__(self):
        self.built = self.boot_to_answer = self.boot_to_kernel_line = 0.0
        self.answered: dict = {}
        self.facts = ""
        self.moves = 0
        self.turns: list[tuple[int, str, frozenset]] = []      # (seq, to act, LEDs lit once steady)
        self.calls: list[tuple[int, str, set, frozenset]] = []  # (seq, call winner, LEDs seen during blink, then)
        self.end: tuple[frozenset, frozenset] | None = None     # (winners, LEDs lit)
        self.stopped: frozenset | None = None
        self.policies: dict[str, dict] = {}
        self.timeline = []
        self.vm: PiVM | None = None
        self.stop_now = threading.Event()
        super().__init__()

    def steady(self, hold: float = 1.2, timeout: float = 30) -> frozenset:
        """The LEDs once they have held still for `hold` s (a blink flips every 0.25 s), or as they are at timeout."""
        deadline = time.monotonic() + timeout
        last, since = lit(self.vm.level()), time.monotonic()
        while time.monotonic() < deadline:
            now = lit(self.vm.level())
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= hold:
                return now
            time.sleep(0.05)
        return last

    def watch(self, seconds: float) -> set[frozenset]:
        seen, end = set(), time.monotonic() + seconds
        while time.monotonic() < end:
            seen.add(lit(self.vm.level()))
            time.sleep(0.02)
        return seen

    def work(self) -> None:
        t = time.monotonic()
        venv, boot = prepare()
        self.built = time.monotonic() - t
        work = Path(tempfile.mkdtemp(prefix="companion-pi3."))
        try:
            image = make_image(work, venv)
            self.vm = PiVM(work)
            self.vm.boot(image, boot)
            self._talk()
        finally:
            if self.vm:
                self.console = self.vm.tail(20000)
                self.vm.close()
            shutil.rmtree(work, ignore_errors=True)

    def _talk(self) -> None:
        vm = self.vm
        first = True
        while not self.stop_now.is_set():
            line = vm.read_line(self.TIMEOUT * (3 if first else 1))  # the boot itself may take long on busy cores
            first = False
            word, _, rest = line.partition(" ")
            self.timeline.append((word, round(time.monotonic() - vm.started, 1)))
            if word == "booted":
                self.boot_to_kernel_line = time.monotonic() - vm.started
            elif word == "answered":
                self.boot_to_answer = time.monotonic() - vm.started
                self.answered = json.loads(rest)
            elif word == "facts":
                self.facts = json.loads(rest)
            elif word == "turn":
                seq, colour = rest.split()
                self.turns.append((int(seq), colour, self.steady()))
                vm.send("ok")
            elif word == "call":
                seq, winner, colour = rest.split()
                seen = self.watch(1.0)  # the winner's blink: 3 s of 0.25 s flashes from the move on
                self.calls.append((int(seq), winner, seen, self.steady()))
                self.turns.append((int(seq), colour, self.calls[-1][3]))
                vm.send("ok")
            elif word == "moves":
                self.moves = int(rest)
            elif word == "end":
                seq, winners = rest.split()
                self.end = (frozenset(winners.split(",")), self.steady())
                vm.send("ok")
            elif word == "stopped":
                self.stopped = self.steady(timeout=10)
                vm.send("ok")
            elif word == "policy":
                found = json.loads(rest)
                self.policies[found["name"]] = found
            elif word == "error":
                raise RuntimeError(f"inside the Pi: {json.loads(rest)}\n{vm.tail()}")
            elif word == "done":
                return

    def kill(self) -> None:
        self.stop_now.set()
        if self.vm:
            self.vm.kill()


_run = emulated.Once(Run)
start, stop_all = _run.start, _run.stop_all   # the one background run of this session, and its end


def can_run() -> str | None:
    """Why the emulated Pi 3 cannot run here, or None when it can: on a new machine the run builds its caches first
    (the arm64 root, its venv with lgpio compiled under qemu-user, the boot files; see docs/TESTING.md for how
    long), in the background beside the rest of the suite. COMPANION_PI_VM=0 leaves the Pi out."""
    if os.environ.get("COMPANION_PI_VM", "") == "0":
        return "the emulated Pi 3 is left out (COMPANION_PI_VM=0)"
    why = ch.can_run()
    if why:
        return why
    missing = [c for c in ("qemu-system-aarch64", "fdtput", "mke2fs", *([] if cached() else ["mmdebstrap"]))
               if not shutil.which(c)]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/bootstrap test installs them)"
    if not cached() and not ch.binfmt_ready("arm64"):
        return ("this kernel cannot run arm64 programs through qemu-user (qemu-user-static and binfmt-support, "
                "which scripts/bootstrap test installs), so the Pi's root cannot be built here")
    return None

if __name__ == "__main__":
    run = start().result()
    for name in ("built", "boot_to_kernel_line", "boot_to_answer", "answered", "facts", "turns", "calls", "end",
                 "stopped", "policies", "timeline"):
        print(name, getattr(run, name))
