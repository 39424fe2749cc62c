"""The LEDs where the service runs them: a folder lgpio cannot write, the root-only settings file, the real reason."""
from __future__ import annotations

import importlib.util
import os
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


def as_someone_else(cmd: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    """Run as a user who cannot write `cwd` (root writes anywhere: it becomes nobody; others get a 0555 folder)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LG_WD", "COMPANION_LEDS", "GPIOZERO_PIN_FACTORY")}
    env["PYTHONPATH"] = str(ROOT)
    prefix = NOBODY if os.geteuid() == 0 else []
    return subprocess.run(prefix + cmd, cwd=str(cwd), env={**env, **kw.pop("env", {})}, capture_output=True,
                          text=True, timeout=60, **kw)


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


def test_lgpio_gets_a_writable_folder_when_the_working_directory_is_not(shared, readonly):
    """lgpio's `xCreatePipe ... .lgd-nfy0` in a read-only folder: LG_WD then points somewhere writable."""
    ours = shared / "db-folder"
    ours.mkdir()
    ours.chmod(0o777)
    told = as_someone_else([sys.executable, "-c", PROBE, str(ours)], readonly)
    assert told.returncode == 0, told.stderr
    assert told.stdout.splitlines()[:2] == [str(ours), "True"]       # the database's folder, when given
    told = as_someone_else([sys.executable, "-c", PROBE, ""], readonly)
    wd, writable = told.stdout.splitlines()[:2]
    assert wd.startswith("/") and wd != str(readonly) and writable == "True"
    told = as_someone_else([sys.executable, "-c", PROBE, str(ours)], ours)
    assert told.stdout.splitlines()[0] == "-", "a writable working directory is left as it is"


def test_real_lgpio_in_a_read_only_folder_loads_and_says_its_own_reason(readonly):
    """With lgpio installed (a Pi; elsewhere it is skipped): importing it no longer fails on its pipe."""
    if importlib.util.find_spec("lgpio") is None:   # not imported here: that would leave its pipe in this folder
        pytest.skip("lgpio is not installed here")
    told = as_someone_else([sys.executable, "-c", PROBE, ""], readonly)
    said = told.stdout.splitlines()[2]
    assert ".lgd-nfy" not in said + told.stderr, said + told.stderr
    assert said == "" or "gpiozero said: lgpio: " in said or "/dev/gpiochip" in said   # off a Pi: no chip


def test_the_wiring_check_reads_the_services_settings_file(shared):
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
    denied = as_someone_else([sys.executable, "-m", "companion.pi.leds", "--settings", str(settings)], shared,
                             env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert denied.returncode == 2
    assert denied.stdout.strip() == (f"Cannot read {settings} (Permission denied); the service's settings file "
                                     "is for root only: run this with sudo.")
