"""The LEDs where the service runs them: a folder lgpio cannot write, the root-only settings file, the real reason."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion.pi.leds import read_settings

ROOT = Path(__file__).resolve().parent.parent
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

PROBE = """
import os, sys
from companion.pi.leds import make_leds
said = []
make_leds(None, log=said.append, workdir=sys.argv[1] or None)
wd = os.environ.get("LG_WD")
print(wd or "-")
print(bool(wd) and os.access(wd, os.W_OK))
print(said[0] if said else "")
"""


def _readable_copy() -> Path:
    """What the probes import (the companion package, gpiozero, colorzero, lgpio where installed) copied to a folder
    anyone can read: the clone may live where the other user cannot (a 0700 folder, root's home)."""
    lib = Path(tempfile.mkdtemp(prefix="metropolys-leds-lib-"))
    lib.chmod(0o755)
    shutil.copytree(ROOT / "companion", lib / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("gpiozero", "colorzero", "lgpio"):
        spec = importlib.util.find_spec(name)   # found, not imported (lgpio would leave its pipe here)
        if spec is None or not spec.origin:
            continue
        if spec.submodule_search_locations:
            shutil.copytree(Path(spec.origin).parent, lib / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:   # a module and its compiled half (lgpio.py and _lgpio*.so)
            for f in Path(spec.origin).parent.glob(f"*{name}*"):
                if f.is_file():
                    shutil.copy(f, lib / f.name)
    for d, _, files in os.walk(lib):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    return lib


def _python_for(prefix: list[str]) -> str:
    """An interpreter the other user can run: this one, unless it lives where they cannot reach (then Debian's)."""
    for python in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        ran = subprocess.run(prefix + [python, "-c", "import sys; assert sys.version_info >= (3, 11)"],
                             cwd="/", capture_output=True, timeout=60)
        if ran.returncode == 0:
            return python
    pytest.skip(f"no Python 3.11 here that uid 65534 can run ({sys.executable} is out of its reach)")


@pytest.fixture(scope="module")
def readable_lib():
    lib = _readable_copy()
    yield lib
    shutil.rmtree(lib, ignore_errors=True)


def as_someone_else(lib: Path, args: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    """Python `args` run as a user who cannot write `cwd` (root writes anywhere: it becomes nobody; others get a
    0555 folder), importing the companion from `lib` (a copy they can read) rather than from the clone."""
    env = {k: v for k, v in os.environ.items() if k not in ("LG_WD", "COMPANION_LEDS", "GPIOZERO_PIN_FACTORY")}
    env["PYTHONPATH"] = str(lib)
    prefix = NOBODY if os.geteuid() == 0 else []
    return subprocess.run(prefix + [_python_for(prefix), *args], cwd=str(cwd), env={**env, **kw.pop("env", {})},
                          capture_output=True, text=True, timeout=60, **kw)


@pytest.fixture
def shared():
    """A folder the other user can reach (pytest's own tmp_path is root's only)."""
    with tempfile.TemporaryDirectory(prefix="metropolys-leds-") as d:
        os.chmod(d, 0o755)
        yield Path(d)


@pytest.fixture
def readonly(shared) -> Path:
    d = shared / "readonly"
    d.mkdir()
    d.chmod(0o555)
    return d


def test_lgpio_gets_a_writable_folder_when_the_working_directory_is_not(shared, readonly, readable_lib):
    """lgpio's `xCreatePipe ... .lgd-nfy0` in a read-only folder: LG_WD then points somewhere writable."""
    ours = shared / "db-folder"
    ours.mkdir()
    ours.chmod(0o777)
    told = as_someone_else(readable_lib, ["-c", PROBE, str(ours)], readonly)
    assert told.returncode == 0, told.stderr
    assert told.stdout.splitlines()[:2] == [str(ours), "True"]       # the database's folder, when given
    told = as_someone_else(readable_lib, ["-c", PROBE, ""], readonly)
    wd, writable = told.stdout.splitlines()[:2]
    assert wd.startswith("/") and wd != str(readonly) and writable == "True"
    told = as_someone_else(readable_lib, ["-c", PROBE, str(ours)], ours)
    assert told.stdout.splitlines()[0] == "-", "a writable working directory is left as it is"


def test_real_lgpio_in_a_read_only_folder_loads_and_says_its_own_reason(readonly, readable_lib):
    """With lgpio installed (a Pi; elsewhere it is skipped): importing it no longer fails on its pipe."""
    if importlib.util.find_spec("lgpio") is None:   # not imported here: that would leave its pipe in this folder
        pytest.skip("lgpio is not installed here")
    told = as_someone_else(readable_lib, ["-c", PROBE, ""], readonly)
    said = told.stdout.splitlines()[2]
    assert ".lgd-nfy" not in said + told.stderr, said + told.stderr
    assert said == "" or "gpiozero said: lgpio: " in said or "not a Raspberry Pi" in said   # off a Pi: no chip


def test_the_wiring_check_reads_the_services_settings_file(shared, readable_lib):
    settings = shared / "metropolys-companion"
    settings.write_text('# the LEDs\nCOMPANION_LED_PINS="red=5, blue=6"\nexport COMPANION_LED_ACTIVE_HIGH=0\n'
                        "COMPANION_WIFI_PASSWORD='a=b;c'\n\n")
    settings.chmod(0o600)
    assert read_settings(str(settings)) == {"COMPANION_LED_PINS": "red=5, blue=6",
                                            "COMPANION_LED_ACTIVE_HIGH": "0", "COMPANION_WIFI_PASSWORD": "a=b;c"}
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock")
    env.pop("COMPANION_LED_PINS", None)
    done = subprocess.run([sys.executable, "-m", "companion.pi.leds", "--step", "0", "--settings", str(settings)],
                          env=env, capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["blue: GPIO 6 (header pin 31) is lit", "red: GPIO 5 (header pin 29) is lit"]
    # Someone who may not read it is told so in one sentence, not with a traceback.
    if os.geteuid() != 0:
        pytest.skip("only root can run the check as another user here")
    denied = as_someone_else(readable_lib, ["-m", "companion.pi.leds", "--settings", str(settings)], shared,
                             env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert denied.returncode == 2
    assert denied.stdout.strip() == (f"Cannot read {settings} (Permission denied); the service's settings file "
                                     "is for root only: run this with sudo.")
