"""Real Debian roots for the deploy tests: built once with debootstrap, cached outside the repository,
booted with systemd-nspawn on a throwaway overlay so the cached root never changes.

Run `python tests/container_helpers.py bookworm trixie bookworm-arm64` (as root) to build the caches ahead.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cross_build  # noqa: E402
import emulated  # noqa: E402  (Background: the arm64 check runs like the VMs)

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("COMPANION_TEST_CACHE", "/var/cache/metropolys-companion-tests"))
# Boot units the emulated machines (tests/pi_vm.py, tests/hotspot_vm.py) mask: file systems and modules nothing in
# them uses (debugfs, tracefs, configfs, FUSE, huge pages, binfmt), and rfkill's saved states (none on a fresh image).
# Each took 3-15 s of the one emulated CPU at every boot (systemd-analyze blame in the Wi-Fi VM).
UNUSED_AT_BOOT = ["sys-kernel-debug.mount", "sys-kernel-tracing.mount", "sys-kernel-config.mount",
                  "sys-fs-fuse-connections.mount", "dev-hugepages.mount", "modprobe@fuse.service",
                  "modprobe@configfs.service", "modprobe@dm_mod.service", "modprobe@loop.service",
                  "proc-sys-fs-binfmt_misc.automount", "systemd-binfmt.service", "kmod-static-nodes.service",
                  "systemd-rfkill.service", "systemd-rfkill.socket"]

# What a Raspberry Pi OS Lite image has that a Debian minbase lacks, as far as install.sh cares:
# systemd as PID 1, Python with venv and pip; NetworkManager (the Pi's network stack since Bookworm)
# in one root for the hotspot test.
BOOTED = ["systemd", "systemd-sysv", "dbus", "python3", "python3-venv", "python3-pip"]
RECIPES = {
    # libpam-systemd: NetworkManager's polkitd needs a logind, which debootstrap does not choose by itself
    "bookworm": {"release": "bookworm", "arch": "amd64", "packages": BOOTED + ["libpam-systemd", "network-manager"]},
    # plain Debian trixie: no python3-lgpio and no lgpio wheel for its Python 3.13, so install.sh builds lgpio from
    # PyPI's source package with what apt would bring (gcc, swig, python3-dev: here ahead, the containers are
    # offline); and Debian's own python3-gpiozero 1.6, older than the venv's
    "trixie": {"release": "trixie", "arch": "amd64",
               "packages": BOOTED + ["gcc", "libc6-dev", "swig", "python3-dev", "python3-gpiozero"]},
    # No systemd needed there: the server is started by hand under emulation. Only what `python3 -m venv` needs
    # (python3-venv brings python3 and the pip wheel ensurepip installs into the venv): every package more is
    # unpacked and configured under qemu, the slowest part of the whole suite on a cold cache. Its wheelhouse
    # is downloaded on the host (see wheelhouse), so the root needs no pip of its own. dpkg leaves out the CA
    # certificates (pip's wheel depends on ca-certificates, whose update-ca-certificates ran twice for 3 minutes
    # each under qemu; everything here is offline), documentation and translations.
    "bookworm-arm64": {"release": "bookworm", "arch": "arm64", "packages": ["python3-venv"],
                       "python": "3.11", "glibc": (2, 36),
                       "leave_out": ["/usr/share/ca-certificates/*", "/usr/share/doc/*", "/usr/share/man/*",
                                     "/usr/share/locale/*", "/usr/share/info/*"]},
    # The kiosk under labwc, headless (tests/test_kiosk_labwc.py): Debian trixie's labwc, Chromium, grim for a screenshot
    "trixie-kiosk": {"release": "trixie", "arch": "amd64",
                     "packages": ["labwc", "chromium", "grim", "curl", "fonts-dejavu-core", "procps",
                                  "dbus-x11"]},  # debootstrap picks no provider of dbus-session-bus by itself
    # The emulated Raspberry Pi 3 (tests/pi_vm.py): Debian trixie arm64 as plain Debian has it (no Raspberry Pi OS
    # archive: no python3-lgpio, and Debian's older python3-gpiozero 1.6), with its own kernel and an initrd
    # holding only what QEMU's raspi3b needs to reach the SD card's root (its SD and ext4 drivers are modules).
    # gcc, swig and python3-dev build lgpio from PyPI's source package, as install.sh does where no wheel fits.
    # Made with mmdebstrap (debootstrap's second stage stalled under qemu-user); udev's hardware database is left
    # out (its compile took minutes under emulation and names nothing QEMU's raspi3b has). ca-certificates: trixie's
    # pip wheel (25.1) loads /etc/ssl/certs/ca-certificates.crt as it is imported, so without the bundle `python3 -m
    # venv` fails in ensurepip (FileNotFoundError); nothing here goes online, so one authority is kept (`keep`), not
    # 146 (update-ca-certificates, run twice, took 38 s of emulated CPU each time for them).
    # "native": what does not depend on the CPU (byte-compiling, depmod) is done afterwards by this machine's CPU
    # with the same Debian versions of Python and kmod (tests/cross_build.py), and the initrd is made once, by
    # pi_vm.boot_files (the kernel's hook and initramfs-tools' trigger each made one here: 41 s of emulated CPU each).
    "trixie-arm64-pi": {"release": "trixie", "arch": "arm64", "mmdebstrap": True, "native": True,
                        "packages": ["systemd-sysv", "udev", "kmod", "linux-image-arm64", "initramfs-tools",
                                     "python3-venv", "python3-dev", "gcc", "libc6-dev", "swig", "python3-gpiozero",
                                     "ca-certificates"],
                        "python": "3.13", "glibc": (2, 41),
                        "files": {"etc/initramfs-tools/conf.d/companion-tests": "MODULES=list\nCOMPRESS=gzip\n",
                                  "etc/initramfs-tools/modules": "sdhci-iproc\nbcm2835\nmmc_block\next4\n"},
                        "leave_out": ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/locale/*",
                                      "/usr/share/info/*", "/usr/lib/udev/hwdb.d/*",
                                      "/usr/share/ca-certificates/mozilla/*"],
                        "keep": ["/usr/share/ca-certificates/mozilla/ISRG_Root_X1.crt"]},
    # The Wi-Fi VM (tests/hotspot_vm.py): Debian trixie amd64 with its own kernel (mac80211_hwsim gives it two
    # radios), NetworkManager as on Raspberry Pi OS, and for the phone's side wpa_supplicant, busybox's udhcpc and
    # curl; hostapd and dnsmasq play the home network. python3-pip: the wheelhouse is downloaded by its own pip.
    # The initrd holds only what QEMU's virtio disk needs to reach the root.
    "trixie-hotspot": {"release": "trixie", "arch": "amd64", "mmdebstrap": True,
                       "packages": ["systemd-sysv", "udev", "kmod", "dbus", "linux-image-amd64", "initramfs-tools",
                                    "network-manager", "dnsmasq-base", "wpasupplicant", "hostapd", "iw", "iproute2",
                                    "busybox", "curl", "python3-venv", "python3-pip", "libpam-systemd"],
                       "files": {"etc/initramfs-tools/conf.d/companion-tests": "MODULES=list\nCOMPRESS=gzip\n",
                                 "etc/initramfs-tools/modules": "virtio_pci\nvirtio_blk\next4\n"},
                       "leave_out": ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/locale/*",
                                     "/usr/share/info/*"]},
}


def mirror() -> str:
    """The Debian mirror this machine's apt uses (deb.debian.org when none is configured)."""
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.exists():
        for uri in re.findall(r"^URIs:\s*(\S+)", sources.read_text(), re.M):
            if not uri.rstrip("/").endswith("-security"):
                return uri
    return "http://deb.debian.org/debian"


LOCKS = ["requirements/run.txt", "requirements/pi.txt"]   # what install.sh installs, exact and hashed


def requirements() -> list[str]:
    """What pip needs to install the project and its `pi` extra offline: the locks install.sh installs."""
    return [arg for lock in LOCKS for arg in ("-r", str(REPO / lock))]


def _locks_text() -> list[str]:
    """The locks' contents, for the cache keys: a new lock is a new wheelhouse."""
    return [(REPO / lock).read_text() for lock in LOCKS]


def _key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:12]


@contextlib.contextmanager
def _locked(name: str):
    """Only one build of a cache entry at a time, even across test runs."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


_running: set[subprocess.Popen] = set()  # builds under way, in this thread or a background one


def _run(cmd: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
    """Run cmd (in its own process group, so that kill_builds can stop all it started) and return its output."""
    with subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, **kw) as proc:
        _running.add(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            _killpg(proc)
            raise
        finally:
            _running.discard(proc)
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def _killpg(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def hurry(proc: subprocess.Popen) -> None:
    """An emulated machine's CPU is one thread the whole run waits on. Started in a session of its own, it is a
    scheduling group of its own (the kernel's autogroup, sched(7)), weighed as one against every other session: each
    test server and browser is one too, and at load 12 the emulated Pi got a fifth of a core (152 s of CPU in
    713 s), and the Wi-Fi VM's wall-clock waits cost it a third more CPU than alone. Nice -5 on the group weighs it
    as three; without root, or without autogroup, it stays as it was."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{proc.pid}/autogroup").write_text("-5")


def kill_builds() -> None:
    """Stop the builds still under way (the session ends before a test needed them, or was interrupted): left
    running, a debootstrap would go on writing into a .partial directory the next run starts afresh."""
    for proc in list(_running):
        _killpg(proc)


def binfmt_ready(arch: str) -> bool:
    """True when this kernel runs `arch` binaries through qemu-user-static, registering it if it can."""
    if arch == "amd64":
        return True
    entry = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
    if not Path("/proc/sys/fs/binfmt_misc/register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"], capture_output=True)
    if not entry.exists() and shutil.which("update-binfmts"):
        subprocess.run(["update-binfmts", "--enable", "qemu-aarch64"], capture_output=True)
    if not entry.exists():
        return False
    text = entry.read_text()
    flags = re.search(r"^flags: *(\S*)$", text, re.M)
    # F: the interpreter is opened now, so it also runs inside a root that does not have it
    return text.startswith("enabled") and bool(flags) and "F" in flags.group(1)


_indexes: dict[tuple[str, str], str] = {}


def archive_index(release: str, arch: str) -> str:
    """The mirror's package lists for `release` on `arch` as its signed InRelease names them (their SHA256 lines):
    they change whenever any package's version does (a point release, a fix), so a root keyed by them is built
    again then, and a recipe that no longer builds against today's archive fails on the next run, not months later.
    "" when the mirror cannot be reached (root() then keeps the newest root built from the same recipe)."""
    if (release, arch) not in _indexes:
        url = f"{mirror().rstrip('/')}/dists/{release}/InRelease"
        try:
            with urllib.request.urlopen(url, timeout=30) as reply:
                text = reply.read().decode(errors="replace")
        except OSError:
            text = ""
        sha256 = text.partition("\nSHA256:\n")[2]
        lines = re.findall(rf"^ [0-9a-f]{{64}} +\d+ main/binary-(?:{arch}|all)/Packages\.xz$", sha256, re.M)
        _indexes[release, arch] = "\n".join(sorted(lines))
    return _indexes[release, arch]


def root_path(name: str) -> Path:
    """Where root `name` is cached: keyed by its recipe, the mirror and the archive's package lists today."""
    recipe = RECIPES[name]
    # a root finished natively is also built from cross_build's stand-ins and compile script
    built_from = f"{name}-{_key(recipe, mirror(), *(cross_build.KEY if recipe.get('native') else []))}"
    index = archive_index(recipe["release"], recipe["arch"])
    if index:
        return CACHE / f"{built_from}-{_key(index)}"
    built = sorted((p for p in CACHE.glob(f"{built_from}-*") if (p / ".complete").exists()),
                   key=lambda p: p.stat().st_mtime)
    if built:
        print(f"\n{mirror()} unreachable: {built[-1].name} kept, built from this recipe on an older archive",
              file=sys.stderr)
        return built[-1]
    return CACHE / f"{built_from}-offline"


def _forget_old_roots(name: str, keep: Path) -> None:
    """Roots of `name` built from an older recipe or archive: gigabytes nothing asks for any more. (Ones named
    without an archive key, from before it was part of the name, are left: an older checkout may be using them.)"""
    for old in CACHE.glob(f"{name}-*"):
        if old != keep and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{12}}-([0-9a-f]{{12}}|offline)", old.name):
            subprocess.run(["rm", "-rf", "--one-file-system", str(old)], capture_output=True)


def root(name: str) -> Path:
    """The cached root filesystem `name` (see RECIPES), built with debootstrap on first use (minutes)."""
    recipe = RECIPES[name]
    path = root_path(name)
    if (path / ".complete").exists():
        return path
    with _locked(name):
        if (path / ".complete").exists():
            return path
        if not binfmt_ready(recipe["arch"]):
            raise RuntimeError(f"cannot run {recipe['arch']} binaries: qemu-user-static and binfmt-support are needed")
        work = path.with_name(path.name + ".partial")
        shutil.rmtree(work, ignore_errors=True)
        started, note = time.monotonic(), ""
        cmd = ["debootstrap", "--variant=minbase", f"--arch={recipe['arch']}",
               f"--include={','.join(recipe['packages'])}", recipe["release"], str(work), mirror()]
        if recipe.get("mmdebstrap"):
            _mmdebstrap(recipe, work)
            note = f"{time.monotonic() - started:.0f} s mmdebstrap\n"
            if recipe.get("native"):
                t = time.monotonic()
                how = cross_build.finish(work, recipe["release"])
                note += f"{time.monotonic() - t:.0f} s {how}\n"
            note += cross_build.slowest(work / ".dpkg.log")
        elif not recipe.get("leave_out"):
            _run(cmd, timeout=3600)
        else:
            # first stage (download, unpack) here; then dpkg is told to leave those paths out before the second
            # stage (every package unpacked again and configured, under qemu) runs in the root
            _run([cmd[0], "--foreign", *cmd[1:]], timeout=3600)
            (work / "etc/dpkg/dpkg.cfg.d/companion-tests").write_text(
                "".join(f"path-exclude={p}\n" for p in recipe["leave_out"]))
            for name_, text in recipe.get("files", {}).items():  # read by the packages' scripts in the second stage
                (work / name_).parent.mkdir(parents=True, exist_ok=True)
                (work / name_).write_text(text)
            _run(["chroot", str(work), "/debootstrap/debootstrap", "--second-stage"], timeout=3600)
        # apt's downloaded .debs are not part of a Pi's image
        for deb in (work / "var/cache/apt/archives").glob("*.deb"):
            deb.unlink()
        (work / ".complete").write_text(f"{time.monotonic() - started:.0f} s to build\n{note}")
        work.rename(path)
        _forget_old_roots(name, path)
    return path


def _mmdebstrap(recipe: dict, work: Path) -> None:
    """A root made by mmdebstrap: apt resolves and dpkg configures everything in one pass, which under qemu-user is
    far quicker than debootstrap's second stage (that one stalled for over an hour on the Pi 3's root). The
    recipe's files are in place before any package is unpacked (the kernel's hook reads the initramfs ones), and
    dpkg leaves out what the recipe says."""
    files = {**recipe.get("files", {}), **(cross_build.STAND_INS if recipe.get("native") else {})}
    setup = "".join(f'mkdir -p "$1/{Path(name).parent}" && printf %s {shlex.quote(text)} > "$1/{name}" && '
                    f'chmod {755 if text.startswith("#!") else 644} "$1/{name}" && ' for name, text in files.items())
    _run(["nice", "-n", "10", "mmdebstrap", "--mode=root", "--variant=minbase", f"--arch={recipe['arch']}",
          f"--include={','.join(recipe['packages'])}",
          *(f"--dpkgopt=path-exclude={p}" for p in recipe.get("leave_out", [])),
          *(f"--dpkgopt=path-include={p}" for p in recipe.get("keep", [])),
          f"--setup-hook={setup}true",
          # apt hands dpkg a PATH of its own (DPkg::Path), without /usr/local where the stand-ins are
          *([f"--essential-hook={cross_build.DIVERT}", f"--customize-hook={cross_build.UNDO}",
             '--aptopt=DPkg::Path "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"']
            if recipe.get("native") else []),
          # dpkg's log, kept for where the time went (mmdebstrap's cleanup removes it)
          "--customize-hook=cp \"$1\"/var/log/dpkg.log \"$1\"/.dpkg.log",
          # apt's downloaded .debs and lists are not part of a Pi's image
          "--customize-hook=rm -rf \"$1\"/var/cache/apt/archives/*.deb \"$1\"/var/lib/apt/lists/*",
          recipe["release"], str(work), mirror()], timeout=3600)


def pi_platforms(arch: str, glibc: tuple[int, int]) -> list[str]:
    """The platform tags pip accepts on a Linux `arch` with that glibc, best first (what pip on that machine
    computes for itself): manylinux_2_<glibc> down to manylinux_2_17 (= manylinux2014), then plain linux."""
    return [*(f"manylinux_2_{minor}_{arch}" for minor in range(glibc[1], 16, -1)), f"manylinux2014_{arch}",
            f"linux_{arch}"]


def _download_for(recipe: dict, reqs: list[str], dest: Path) -> None:
    """pip on this host downloads what pip on the emulated machine would pick: the same Python version, ABI and
    platform tags, wheels only (a pure wheel where there is no binary one). Running the root's own pip under
    qemu for this took a minute or more, and made the root carry pip."""
    platforms = pi_platforms("aarch64" if recipe["arch"] == "arm64" else recipe["arch"], recipe["glibc"])
    version = recipe["python"]
    _run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-cache-dir",
          "--only-binary=:all:", "--implementation", "cp", "--python-version", version,
          "--abi", f"cp{version.replace('.', '')}", "--abi", "abi3", "--abi", "none",
          *(f"--platform={p}" for p in platforms), "--dest", str(dest), *reqs], timeout=1800)


def wheelhouse(name: str) -> Path:
    """A directory of the wheels (or sdists, where PyPI has no wheel) that pip in root `name` picks for the
    project and its `pi` extra: downloaded by that root's own pip and Python, as pip on a Pi would; for an
    emulated root by the host's pip told that root's Python and platform (see _download_for)."""
    recipe = RECIPES[name]
    base = root(name)
    reqs = requirements()
    emulated = recipe["arch"] != "amd64"
    path = CACHE / f"wheels-{name}-{_key(base.name, _locks_text(), *(['host pip'] if emulated else []))}"
    if (path / ".complete").exists():
        return path
    with _locked(f"wheels-{name}"):
        if (path / ".complete").exists():
            return path
        if emulated:
            work = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=CACHE))
            try:
                _download_for(recipe, reqs, work)
                shutil.rmtree(path, ignore_errors=True)
                (work / ".complete").write_text(" ".join(reqs) + "\n")
                work.rename(path)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            return path
        work = Path(tempfile.mkdtemp(prefix="wheels.", dir=base / "tmp"))
        try:
            shutil.copy2("/etc/resolv.conf", base / "etc/resolv.conf")
            inside = "/" + str(work.relative_to(base))
            # this machine's certificate authorities (it may reach PyPI through a proxy of its own)
            certs = work / "ca-certificates.crt"
            shutil.copy2(os.environ.get("PIP_CERT") or "/etc/ssl/certs/ca-certificates.crt", certs)
            locks = [shutil.copy2(REPO / lock, work / Path(lock).name) for lock in LOCKS]
            _run(["chroot", str(base), "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                  f"PIP_CERT={inside}/ca-certificates.crt", *(f"{k}={v}" for k, v in os.environ.items()
                                                              if k in ("HTTPS_PROXY", "https_proxy", "PIP_DEFAULT_TIMEOUT")),
                  "python3", "-m", "pip", "download", "--disable-pip-version-check", "--no-cache-dir",
                  "--dest", inside, *(a for lock in locks for a in ("-r", f"{inside}/{Path(lock).name}"))],
                 timeout=1800)
            for f in (certs, *map(Path, locks)):
                f.unlink()
            shutil.rmtree(path, ignore_errors=True)
            shutil.copytree(work, path)
            (path / ".complete").write_text(" ".join(reqs) + "\n")
        finally:
            shutil.rmtree(work, ignore_errors=True)
            (base / "etc/resolv.conf").unlink(missing_ok=True)
    return path


def source_copy(dest: Path) -> Path:
    """This checkout as a person's clone would have it (no .git, venv or caches)."""
    shutil.copytree(REPO, dest, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "*.sqlite3", "node_modules",
        "test-results", "*.egg-info", "build", ".lgd-nfy*"))
    return dest


class Overlay:
    """The cached root under a throwaway writable layer: what a test changes is gone afterwards."""

    def __init__(self, lower: Path):
        self.tmp = Path(tempfile.mkdtemp(prefix="companion-ct."))
        self.upper, self.work, self.merged = self.tmp / "upper", self.tmp / "work", self.tmp / "root"
        for d in (self.upper, self.work, self.merged):
            d.mkdir()
        _run(["mount", "-t", "overlay", "overlay", "-o",
              f"lowerdir={lower},upperdir={self.upper},workdir={self.work}", str(self.merged)], timeout=60)

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.merged)], capture_output=True)
        if not os.path.ismount(self.merged):  # never delete through a mount into the cached root
            shutil.rmtree(self.tmp, ignore_errors=True)


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class Machine:
    """A Debian root booted with real systemd (systemd-nspawn -b), no network but its own loopback.

    Commands run inside through nsenter: `--register=no` leaves machined out of it (there is none
    on this host), so `machinectl shell` and `systemd-run -M` are not available."""

    def __init__(self, name: str, log: Path, lower: str | None = None):
        """`lower`: the overlay's lower layers ("upper-layer:root"), if not the cached root `name` alone."""
        self.name, self.log = name, log
        self.overlay = Overlay(lower or root(name))
        self.dir = self.overlay.merged
        self.proc: subprocess.Popen | None = None
        self.leader = 0

    def boot(self, binds: dict[Path, str] = {}, timeout: float = 120) -> float:
        """Boot and wait until systemd says the system is up; returns the seconds it took."""
        env = dict(os.environ)
        # This host mounts cgroups v1 (hybrid) and its PID 1 is not systemd. systemd 256 and later (trixie has
        # 257) refuse to boot on cgroup v1, hybrid included, so the container gets the unified (v2) hierarchy,
        # which nspawn mounts for it from the host's cgroup2 mount.
        env["SYSTEMD_NSPAWN_UNIFIED_HIERARCHY"] = "1"
        # --keep-unit: without it nspawn asks the host's systemd for a scope unit over D-Bus and stops with
        # "Failed to open system bus" here (there is no host systemd); with it, and --register=no (no machined
        # either), nspawn asks the host's service manager for nothing.
        cmd = ["systemd-nspawn", "-b", "-D", str(self.dir), "--private-network", "--register=no", "--keep-unit",
               "--machine", f"companion-{self.name}-{os.getpid()}", "--console=pipe", "--link-journal=no"]
        for host, inside in binds.items():
            cmd.append(f"--bind-ro={host}:{inside}")
        started = time.monotonic()
        self.out = open(self.log, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.out, stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)
        deadline, state = started + timeout, "not started"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"systemd-nspawn exited {self.proc.returncode}:\n{self.log.read_text()[-4000:]}")
            # nspawn's first child only sets up and exits; the container's PID 1 is the one running systemd
            self.leader = next((kid for kid in _children(self.proc.pid) if _comm(kid) == "systemd"), 0)
            if self.leader:
                state = self.sh("systemctl is-system-running", timeout=30, check=False).stdout.strip()
                if state in ("running", "degraded"):
                    return time.monotonic() - started
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not finish booting in {timeout:.0f} s (state {state!r}); its console:\n"
                           + self.log.read_text()[-4000:])

    def sh(self, script: str, env: dict[str, str] = {}, timeout: float = 120,
           check: bool = True) -> subprocess.CompletedProcess:
        """Run a bash script inside as root, with a login-like clean environment."""
        assert self.leader, "not booted"
        base = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
                "LANG": "C.UTF-8", "TERM": "dumb"}
        cmd = ["nsenter", "-t", str(self.leader), "-a", "-r", "-w", "env", "-i",
               *(f"{k}={v}" for k, v in {**base, **env}.items()), "bash", "-c", script]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError(f"inside {self.name}: {script!r} exited {done.returncode}\n--- stdout\n"
                                 f"{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
        return done

    def journal(self, unit: str = "metropolys-companion", lines: int = 60) -> str:
        return self.sh(f"journalctl -u {unit} --no-pager -n {lines}", check=False).stdout

    def shutdown(self) -> None:
        """Power the container off (the overlay stays, so it can boot again)."""
        if self.proc and self.proc.poll() is None:
            # SIGTERM asks nspawn for an orderly shutdown (like poweroff); kill it if that hangs
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        if self.proc:
            self.out.close()
        self.proc, self.leader = None, 0

    def close(self) -> None:
        self.shutdown()
        self.overlay.close()


def prebuild(names: list[str], make: Callable[[str], Path] | None = None) -> threading.Thread:
    """Build what `names` need and is not yet cached (make: their wheelhouse and so their root, by default), one
    after the other in a background thread, while other tests run. A test that needs one waits on its lock (flock:
    also between threads of one process) and finds it built; a failed build is only printed here: the test that
    needs it tries again and fails with why."""
    def build() -> None:
        for name in names:
            try:
                (make or wheelhouse)(name)
            except Exception as e:  # noqa: BLE001 (the test that needs it says why)
                print(f"\nbuilding {name} ahead failed: {e}", file=sys.stderr)

    thread = threading.Thread(target=build, name=f"prebuild {' '.join(names)}", daemon=True)
    thread.start()
    return thread


def prebuild_roots(names: list[str]) -> threading.Thread:
    """Like prebuild, for roots that need no wheelhouse."""
    return prebuild(names, root)


CLONE = "/root/metropolys-companion"  # where a person's clone is, inside the roots
VENV = "/opt/metropolys-companion/.venv"
# install.sh's commands for the venv and the locks (lgpio as a binary wheel only), but for --no-compile:
# byte-compiling every installed module under emulation takes long and proves nothing here (Python compiles what
# it imports). What they make depends only on the root, the locks and these lines, so it is kept as a cached
# layer (aarch64_venv): minutes of emulated pip per run otherwise.
AARCH64_VENV = f"""set -e
python3 -m venv --system-site-packages {VENV}
py={VENV}/bin/python
$py -m pip install --no-compile --require-hashes -r /root/locks/run.txt
$py -m pip install --no-compile --only-binary=:all: --require-hashes -r /root/locks/pi.txt
"""
# Each run: this checkout installed into that venv as install.sh does, lgpio's wheel tag, and a first answer.
AARCH64_SCRIPT = f"""set -e
py={VENV}/bin/python
$py -m pip install --no-compile --no-deps --no-build-isolation {CLONE}
echo "lgpio wheel: $(grep '^Tag:' {VENV}/lib/python3*/site-packages/lgpio-*.dist-info/WHEEL)"
$py -c 'import lgpio, platform; print("lgpio", lgpio.__file__, platform.machine())'
{VENV}/bin/companion serve --host 127.0.0.1 --port 8000 --db /tmp/c.sqlite3 > /tmp/serve.log 2>&1 &
for i in $(seq 1 240); do
  if $py -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:8000/table", timeout=5).status)'
  then echo "answered after $i tries"; exit 0; fi
  sleep 0.5
done
echo "no answer; serve printed:"; cat /tmp/serve.log; exit 1
"""


def _nspawn_arm64(merged: Path, wheels: Path, script: str) -> list[str]:
    return ["systemd-nspawn", "-D", str(merged), "--private-network", "--register=no", "--keep-unit", "--quiet",
            "--setenv=PIP_NO_INDEX=1", "--setenv=PIP_FIND_LINKS=/wheelhouse", "--setenv=PIP_DISABLE_PIP_VERSION_CHECK=1",
            f"--bind-ro={wheels}:/wheelhouse", "bash", "-c", script]


def cached_layer(base: Path, path: Path, build: Callable[[Path], str]) -> Path:
    """`build(root)` run on a writable overlay of `base`; what it changed becomes the cached layer `path` (a lower
    layer for later overlays), marked complete with the note `build` returns. Call it under `_locked`."""
    layer = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=CACHE))  # on the cache's filesystem: renamed
    upper, work, merged = layer / "upper", layer / "work", layer / "root"
    for d in (upper, work, merged):
        d.mkdir()
    _run(["mount", "-t", "overlay", "overlay", "-o", f"lowerdir={base},upperdir={upper},workdir={work}", str(merged)],
         timeout=60)
    try:
        note = build(merged)
    finally:
        subprocess.run(["umount", str(merged)], capture_output=True)
    if os.path.ismount(merged):
        raise RuntimeError(f"{merged} is still mounted")
    (upper / ".complete").write_text(note)
    shutil.rmtree(path, ignore_errors=True)
    upper.rename(path)
    shutil.rmtree(layer, ignore_errors=True)
    return path


def aarch64_venv(wheels: Path) -> Path:
    """The venv of the locks made once in the arm64 root under qemu (AARCH64_VENV), cached as an overlay layer."""
    base = root("bookworm-arm64")
    path = CACHE / f"bookworm-arm64-venv-{_key(base.name, _locks_text(), AARCH64_VENV)}"
    if (path / ".complete").exists():
        return path

    def build(merged: Path) -> str:
        locks = merged / "root/locks"
        locks.mkdir(parents=True)
        for lock in ("run.txt", "pi.txt"):
            shutil.copy(REPO / "requirements" / lock, locks / lock)
        made = _run(["nice", "-n", "10", *_nspawn_arm64(merged, wheels, AARCH64_VENV)], timeout=3600)
        shutil.rmtree(locks)
        return made.stdout[-4000:]

    with _locked("bookworm-arm64-venv"):
        if (path / ".complete").exists():
            return path
        return cached_layer(base, path, build)


class Aarch64Check(emulated.Background):
    """The arm64 root's install and first answer, run once in a background thread (it is mostly emulated CPU
    work, so it can overlap tests that mostly wait); `result` waits for it."""
    TIMEOUT = 1200  # s for the run itself, after the root is built
    name = "aarch64 check"

    def __init__(self):
        self.done: subprocess.CompletedProcess | None = None
        self.built = self.ran = 0.0
        self.wheels: list[str] = []
        self.proc: subprocess.Popen | None = None
        super().__init__()

    def work(self) -> None:
        t = time.monotonic()
        wheels = wheelhouse("bookworm-arm64")
        self.built, self.wheels = time.monotonic() - t, sorted(p.name for p in wheels.iterdir())
        venv = aarch64_venv(wheels)
        self.built = time.monotonic() - t
        layer = Overlay(f"{venv}:{root('bookworm-arm64')}")
        try:
            source_copy(layer.merged / CLONE.lstrip("/"))
            t = time.monotonic()
            self.proc = subprocess.Popen(_nspawn_arm64(layer.merged, wheels, AARCH64_SCRIPT),
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, start_new_session=True)
            try:
                out, err = self.proc.communicate(timeout=self.TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
                out, err = self.proc.communicate()
                err += f"\n(killed: no result after {self.TIMEOUT} s)"
            self.ran = time.monotonic() - t
            self.done = subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)
        finally:
            layer.close()

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            _killpg(self.proc)


_aarch64 = emulated.Once(Aarch64Check)
aarch64_start = _aarch64.start   # the one background arm64 check of this session, started now if it was not yet


def aarch64_check() -> Aarch64Check:
    return aarch64_start().result()


def stop_all() -> None:
    """At the end of the session: builds and the arm64 run still under way are stopped."""
    kill_builds()
    _aarch64.stop_all()


def can_run() -> str | None:
    """Why the container tests cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, mount, systemd-nspawn)"
    missing = [c for c in ("debootstrap", "systemd-nspawn", "nsenter", "chroot") if not shutil.which(c)]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/bootstrap test installs them)"
    return None


if __name__ == "__main__":
    for wanted in sys.argv[1:] or list(RECIPES):
        t = time.monotonic()
        print(wanted, root(wanted), f"{time.monotonic() - t:.0f} s", flush=True)
        t = time.monotonic()
        print(wanted, wheelhouse(wanted), f"{time.monotonic() - t:.0f} s", flush=True)
