"""The parts of building an arm64 root whose result does not depend on the CPU, done by this machine's own CPU with
the same Debian release's amd64 build of the same tool, instead of under qemu-user: byte-compiling Python (the same
Python 3.13 package version, so the same compiler and marshal format: measured against the Pi's root as emulation
had compiled it, 709 or 710 of its 711 .pyc files came out byte-identical and the others held equal code objects,
marshal's reference flags aside) and depmod (the same kmod: every modules.* file identical). Under emulation these
took 39 s (libpython3.13-minimal), 44 s (the standard library), 3-5 s for each Debian Python package and 37 s
(depmod over the kernel's 94 MB of modules) of CPU; natively 2 s and 4 s.

Where the two architectures' versions differ (the archive mid-update), the same work runs in the root itself,
under emulation, as before: slower, never different."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from datetime import datetime
from pathlib import Path

from emulated import ch

# While mmdebstrap installs the packages: the scripts' calls to what runs natively afterwards only leave a note.
# Maintainer scripts find /usr/local first on their PATH; python3.13's own scripts call /usr/bin/python3.13 with
# py_compile.py by its full path, so that one is set aside with dpkg-divert and a stand-in passes everything else on.
SKIPPED = "/.companion-skipped"
_STAND_IN = (f"#!/bin/sh\n# building the root: done natively afterwards (tests/cross_build.py)\n"
             f"echo \"$0 $*\" >> {SKIPPED}\n")
STAND_INS = {"usr/local/bin/py3compile": _STAND_IN, "usr/local/sbin/depmod": _STAND_IN,
             "usr/local/sbin/update-initramfs": _STAND_IN}
_PYTHON = f"""#!/bin/sh
# building the root: the standard library is byte-compiled natively afterwards (tests/cross_build.py)
case "$1 $2 $3 $4" in
"-E -S /usr/lib/python3.13/py_compile.py "*|"-E -S -O /usr/lib/python3.13/py_compile.py"*)
    echo "python3.13 $1 $2 $3 ..." >> {SKIPPED}; exit 0;;
esac
exec /usr/bin/python3.13.distrib "$@"
"""
DIVERT = ('chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/bin/python3.13.distrib '
          f'--add /usr/bin/python3.13 && printf %s {shlex.quote(_PYTHON)} > "$1/usr/bin/python3.13" && '
          'chmod 755 "$1/usr/bin/python3.13"')
UNDO = ('rm "$1/usr/bin/python3.13" && chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/bin/python3.13 '
        f'&& rm {" ".join(chr(34) + "$1/" + p + chr(34) for p in STAND_INS)}')

# What runs natively, and the arm64 packages whose version must be the same for it to
TOOLS = ["python3.13-minimal", "libpython3.13-stdlib", "kmod"]
# Where Debian's packages' own scripts byte-compile (python3.13's postinsts: the standard library; py3compile: the
# rest); python-config.py (libpython3.13-dev, which compiles nothing) is a script, not a module
COMPILED = re.compile(r"^/usr/(lib/python3\.13|lib/python3/dist-packages|share/python3)/(?!config-).*\.py$")
# py_compile as Debian's postinsts call it, for a list of files, each written as the root will see it; `prefix` is
# where the root is mounted for the compiling Python ("" when it is the root's own Python)
COMPILE = """import importlib.util, os, py_compile, sys
os.umask(0o022)
prefix, listed = sys.argv[1], sys.argv[2]
def inside(path):  # a link in the root (sitecustomize.py into /etc) followed within the root
    for _ in range(8):
        if not os.path.islink(prefix + path):
            break
        path = os.path.join(os.path.dirname(path), os.readlink(prefix + path))
    return prefix + os.path.normpath(path)
for path in open(listed).read().split("\\n"):
    if path:
        py_compile.compile(inside(path), prefix + importlib.util.cache_from_source(path), dfile=path, doraise=True)
"""
KEY = [STAND_INS, DIVERT, UNDO, COMPILE, "finish 2"]  # what a root finished here is built from, beside its recipe


def tools(release: str) -> Path:
    """The amd64 build of TOOLS from `release`, unpacked with their libraries (mmdebstrap's extract variant: no
    scripts run, about 30 s), cached like a root: keyed by the mirror and its amd64 package lists."""
    name = f"tools-{release}-amd64"
    path = ch.CACHE / f"{name}-{ch._key(sorted(TOOLS), ch.mirror(), ch.archive_index(release, 'amd64'))}"
    if (path / ".complete").exists():
        return path
    with ch._locked(name):
        if (path / ".complete").exists():
            return path
        work = path.with_name(path.name + ".partial")
        shutil.rmtree(work, ignore_errors=True)
        ch._run(["nice", "-n", "10", "mmdebstrap", "--quiet", "--mode=root", "--variant=extract", "--arch=amd64",
                 # kmod opens liblzma only when a module needs it (the kernel's are .ko.xz): not a dependency
                 f"--include={','.join([*TOOLS, 'liblzma5'])}",
                 "--extract-hook=for deb in \"$1\"/var/cache/apt/archives/*.deb; do "
                 "dpkg-deb --show --showformat='${Package} ${Version}\\n' \"$deb\"; done > \"$1\"/.versions",
                 release, str(work), ch.mirror()], timeout=900)
        for top in ("bin", "lib", "lib64", "sbin"):  # merged /usr, as an installed Debian has it
            if not (work / top).exists():
                (work / top).symlink_to(f"usr/{top}")
        (work / ".complete").write_text("extracted\n")
        shutil.rmtree(path, ignore_errors=True)
        work.rename(path)
        for old in ch.CACHE.glob(f"{name}-*"):  # from older package lists
            if old != path and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{12}}", old.name):
                shutil.rmtree(old, ignore_errors=True)
    return path


def _versions(text: str, arch_status: bool) -> dict[str, str]:
    if not arch_status:
        return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
    found = {}
    for block in text.split("\n\n"):
        fields = dict(re.findall(r"^(Package|Version|Status): (.*)$", block, re.M))
        if fields.get("Status", "").endswith(" installed"):
            found[fields["Package"]] = fields["Version"]
    return found


def native(root: Path, release: str) -> Path | None:
    """The native tools for `root`, or None when their versions differ from the root's (then work runs emulated)."""
    have = tools(release)
    amd64 = _versions((have / ".versions").read_text(), arch_status=False)
    arm64 = _versions((root / "var/lib/dpkg/status").read_text(), arch_status=True)
    if all(amd64.get(pkg) == arm64.get(pkg) for pkg in TOOLS):
        return have
    return None


def run_in(root: Path, helper: Path | None, cmd: list[str], timeout: float = 1800) -> str:
    """`cmd` with the root at /target under the native helper (a private mount), or in the root itself, at /."""
    if helper is None:
        return ch._run(["nice", "-n", "10", "chroot", str(root), "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                        *[c.replace("@TARGET@", "") for c in cmd]], timeout=timeout).stdout
    script = ('mount --bind "$1" "$2/target" && shift 2 && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin '
              'chroot "$0" "$@"')
    (helper / "target").mkdir(exist_ok=True)
    return ch._run(["unshare", "--mount", "sh", "-c", script, str(helper), str(root), str(helper),
                    *[c.replace("@TARGET@", "/target") for c in cmd]], timeout=timeout).stdout


def byte_compile(root: Path, helper: Path | None, files: list[str]) -> None:
    """Each of `files` (paths as the root sees them) byte-compiled as the packages' own scripts would."""
    if not files:
        return
    with tempfile.TemporaryDirectory(dir=root / "tmp") as tmp:
        listed, script = Path(tmp) / "files", Path(tmp) / "compile.py"
        listed.write_text("\n".join(files) + "\n")
        script.write_text(COMPILE)
        inside = "/" + str(Path(tmp).relative_to(root))
        python = "/usr/bin/python3.13" if helper else "python3"
        run_in(root, helper, [python, "-E", "-S", f"@TARGET@{inside}/compile.py", "@TARGET@",
                              f"@TARGET@{inside}/files"])


def packaged_modules(root: Path) -> list[str]:
    """The Python files Debian's packages in `root` byte-compile when they are configured (see COMPILED)."""
    found = set()
    for listing in (root / "var/lib/dpkg/info").glob("*.list"):
        found.update(p for p in listing.read_text().splitlines() if COMPILED.match(p))
    return sorted(p for p in found if (root / p.lstrip("/")).is_file() or (root / p.lstrip("/")).is_symlink())


def depmod(root: Path, helper: Path | None, version: str) -> None:
    """The kernel package's `depmod <version>`, its module index written for the root."""
    run_in(root, helper, ["depmod", *(["-b", "/target"] if helper else []), version])


def finish(root: Path, release: str) -> str:
    """What the stand-ins left out, done: the packaged modules byte-compiled and each kernel's depmod; says how."""
    note = root / SKIPPED.lstrip("/")
    skipped = note.read_text() if note.exists() else ""
    note.unlink(missing_ok=True)
    helper = native(root, release)
    t = time.monotonic()
    byte_compile(root, helper, modules := packaged_modules(root))
    said = f"{len(modules)} modules byte-compiled in {time.monotonic() - t:.0f} s"
    for kernel in (root / "usr/lib/modules").iterdir():
        t = time.monotonic()
        depmod(root, helper, kernel.name)
        said += f", depmod {kernel.name} in {time.monotonic() - t:.0f} s"
    runs = len(skipped.splitlines())
    return f"{said} ({'natively' if helper else 'emulated: the amd64 versions differ'}; {runs} calls stood in for)"


def slowest(dpkg_log: Path, count: int = 8) -> str:
    """dpkg's slowest steps in a build, from its log: the seconds before each line, given to that line's step."""
    if not dpkg_log.exists():
        return ""
    stamped = [(datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S"), line[20:])
               for line in dpkg_log.read_text().splitlines() if line[:2] == "20"]
    gaps = sorted(((b[0] - a[0]).total_seconds(), b[1]) for a, b in zip(stamped, stamped[1:]))[::-1][:count]
    total = (stamped[-1][0] - stamped[0][0]).total_seconds() if stamped else 0
    return f"dpkg {total:.0f} s; slowest: " + "; ".join(f"{s:.0f} s {what}" for s, what in gaps) + "\n"


def stale(root: Path, modules: list[str], python: Path | None = None) -> list[str]:
    """Those of `modules` (paths in `root`) whose .pyc the Python of root `python` (`root` itself by default) would
    not load: missing, of another Python (its magic number, as its importlib has it), or naming another source
    mtime or size."""
    found = next(((python or root) / "usr/lib").glob("python3.*/importlib/_bootstrap_external.py"))
    number = int(re.search(r"^MAGIC_NUMBER = \((\d+)\)\.to_bytes", found.read_text(), re.M).group(1))
    magic = number.to_bytes(2, "little") + b"\r\n"
    tag = "cpython-" + found.parent.parent.name.removeprefix("python").replace(".", "")
    bad = []
    for path in modules:
        source = root / path.lstrip("/")
        compiled = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        while source.is_symlink():  # sitecustomize.py, into the root's /etc
            link = os.readlink(source)
            source = root / link.lstrip("/") if link.startswith("/") else source.parent / link
        if not compiled.exists():
            bad.append(f"{path}: no .pyc")
            continue
        head, st = compiled.read_bytes()[:16], source.stat()
        if head[:4] != magic or int.from_bytes(head[4:8], "little") != 0 \
                or int.from_bytes(head[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF \
                or int.from_bytes(head[12:16], "little") != st.st_size & 0xFFFFFFFF:
            bad.append(f"{path}: {compiled.name} does not match it")
    return bad
