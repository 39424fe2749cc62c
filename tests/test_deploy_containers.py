"""deploy/ for real: install.sh run from a clone on Debian bookworm and trixie booted with systemd (systemd-nspawn),
offline from a wheelhouse pip made for that release's Python; the aarch64 wheel under qemu; the hotspot
against a real NetworkManager. The roots are built once with debootstrap and cached (container_helpers.py)."""
from __future__ import annotations

import contextlib
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from container_helpers import CACHE, CLONE, REPO, Machine, aarch64_check, can_run, source_copy, wheelhouse

why_not = can_run()
pytestmark = pytest.mark.skipif(why_not is not None, reason=f"container tests: {why_not}")

OFFLINE = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/wheelhouse", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
SERVICE = "metropolys-companion.service"
SETTINGS = "/etc/default/metropolys-companion"
RUNNING = "Metropolys companion is running"
LEDS_OFF = re.compile(r"^The LEDs are off: ", re.M)
# what a person types (their clone is in root's home: sudo keeps them root)
INSTALL = f"cd {CLONE} && bash deploy/install.sh --no-kiosk"
ANSWERS = """python3 - <<'EOF'
import urllib.request
with urllib.request.urlopen("http://127.0.0.1:8000/table", timeout=5) as r:
    print(r.status, len(r.read()))
EOF"""
FIGURES = CACHE / "figures.txt"


def figure(text: str) -> None:
    """Measured figures, printed (pytest -s or -rA shows them) and kept beside the cache."""
    print(text)
    with open(FIGURES, "a") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text}\n")


class Installed:
    def __init__(self, name: str, machine: Machine, first: subprocess.CompletedProcess):
        self.name, self.m, self.first = name, machine, first


RELEASES = ["bookworm", "trixie"]


def _prepare(name: str, log: Path) -> Installed:
    """A fresh `name` booted with systemd, with install.sh run once from a clone, as a person would."""
    t = time.monotonic()
    wheels = wheelhouse(name)
    if time.monotonic() - t > 5:
        figure(f"{name}: root and wheelhouse built in {time.monotonic() - t:.0f} s (first run only)")
    machine = Machine(name, log)
    try:
        source_copy(machine.dir / CLONE.lstrip("/"))
        figure(f"{name}: booted in {machine.boot(binds={wheels: '/wheelhouse'}):.1f} s")
        t = time.monotonic()
        first = machine.sh(INSTALL, env=OFFLINE, timeout=900, check=False)
        figure(f"{name}: first install.sh run took {time.monotonic() - t:.1f} s")
        return Installed(name, machine, first)
    except BaseException:
        machine.close()
        raise


@pytest.fixture(scope="module")
def prepared(request, tmp_path_factory):
    """Every release the selected tests need, booted and installed at once in background threads: the releases
    are separate containers with their own network namespaces, and their boots and first installs overlap
    instead of following one another (the tests then look at one release at a time)."""
    here = Path(__file__).name
    wanted = [n for n in RELEASES if any(i.path.name == here and f"[{n}]" in i.name for i in request.session.items)]
    pool = ThreadPoolExecutor(max_workers=max(1, len(wanted)), thread_name_prefix="prepare")
    futures = {n: pool.submit(_prepare, n, tmp_path_factory.mktemp(n) / "console.log") for n in wanted}
    try:
        yield futures
    finally:
        for future in futures.values():  # the ones no test took (deselected, or the run stopped early)
            with contextlib.suppress(BaseException):
                future.result().m.close()
        pool.shutdown()


@pytest.fixture(scope="module", params=RELEASES)
def pi(request, prepared, tmp_path_factory):
    name = request.param
    future = prepared.get(name)
    installed = future.result() if future else _prepare(name, tmp_path_factory.mktemp(name) / "console.log")
    try:
        yield installed
    finally:
        installed.m.close()


def check_running(pi: Installed, settle: float = 20) -> None:
    """Active, answering on 127.0.0.1:8000 as the service user, and still not restarted `settle` s later."""
    m = pi.m
    assert m.sh(f"systemctl is-active {SERVICE}", check=False).stdout.strip() == "active", m.journal()
    status = m.sh(ANSWERS, check=False)
    assert status.returncode == 0 and status.stdout.startswith("200 "), status.stderr + m.journal()
    pid = m.sh(f"systemctl show -p MainPID --value {SERVICE}").stdout.strip()
    uid = m.sh(f"awk '/^Uid:/ {{ print $2 }}' /proc/{pid}/status && id -u metropolys").stdout.split()
    assert uid[0] == uid[1], f"the server runs as uid {uid[0]}, not as metropolys ({uid[1]})"
    time.sleep(settle)
    restarts = m.sh(f"systemctl show -p NRestarts --value {SERVICE}").stdout.strip()
    assert restarts == "0", f"the service restarted {restarts} times:\n{m.journal()}"
    assert m.sh(f"systemctl is-active {SERVICE}", check=False).stdout.strip() == "active", m.journal()
    assert m.sh(ANSWERS, check=False).stdout.startswith("200 "), m.journal()


def test_install_says_running_only_once_it_is(pi):
    out = pi.first.stdout
    assert pi.first.returncode == 0, f"install.sh exited {pi.first.returncode}\n{out[-3000:]}\n{pi.first.stderr[-3000:]}"
    assert RUNNING in out
    assert out.index("answers on http://127.0.0.1:8000/ after") < out.index(RUNNING)
    # a private network: no address for phones yet, and it says so instead of inventing one
    assert "this Pi has no network address yet" in out
    if pi.name == "trixie":
        # PyPI's lgpio wheels stop at CPython 3.12 and Debian has no python3-lgpio: built from the source package
        assert "lgpio built from its source package" in out, out[-3000:]
        assert not LEDS_OFF.search(out)
    else:
        assert "lgpio installed from a ready-built wheel" in out, out[-2000:]
        assert not LEDS_OFF.search(out)


def test_the_venvs_gpiozero_2_and_lgpio_are_the_ones_imported(pi):
    """Debian trixie's python3-gpiozero 1.6.2 cannot drive lgpio 0.2 (AttributeError: SET_BIAS_DISABLE): the venv
    sees the OS's packages, so its own gpiozero 2 must come first."""
    done = pi.m.sh("/opt/metropolys-companion/.venv/bin/python -c 'import gpiozero, lgpio, importlib.metadata as m; "
                   "print(m.version(gpiozero.__name__), gpiozero.__file__, lgpio.__file__)'", check=False)
    assert re.fullmatch(r"2\.\S+ /opt/metropolys-companion/\.venv/\S+ /opt/metropolys-companion/\.venv/\S+\n",
                        done.stdout), done.stdout + done.stderr
    if pi.name == "trixie":
        assert pi.m.sh("dpkg-query -W -f '${Version}' python3-gpiozero").stdout.startswith("1.6")
    rule = pi.m.sh("cat /etc/udev/rules.d/60-metropolys-gpio.rules").stdout
    assert 'KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' in rule


def test_the_pi_runs_exactly_the_locked_versions(pi):
    """What install.sh put in the venv is requirements/run.txt to the version, on each release's Python."""
    from lockfile import installed_matches_lock
    freeze = pi.m.sh("/opt/metropolys-companion/.venv/bin/python -m pip list --format=freeze").stdout
    assert installed_matches_lock(freeze, REPO / "requirements/run.txt") == []


def test_service_is_active_answers_and_does_not_restart(pi):
    check_running(pi)


def test_the_installed_unit_is_the_one_in_the_repository_with_its_hardening(pi):
    unit = pi.m.sh(f"cat /etc/systemd/system/{SERVICE}").stdout
    assert unit == (REPO / "deploy" / SERVICE).read_text()
    shown = pi.m.sh(f"systemctl show {SERVICE} -p RestrictAddressFamilies -p ProtectSystem -p User "
                    "-p Environment").stdout
    assert "ProtectSystem=strict" in shown and "User=metropolys" in shown
    assert "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" in shown or "AF_UNIX AF_INET AF_INET6" in shown, shown
    assert "LG_WD=/var/lib/metropolys-companion" in shown


def test_the_settings_are_readable_by_the_service_user_only(pi):
    mode = pi.m.sh(f"stat -c '%a %U %G' {SETTINGS}").stdout.split()
    assert mode == ["640", "root", "metropolys"]
    # and the database the service made, every game's secret cards in it, is the service user's only (UMask=0077)
    made = pi.m.sh("stat -c '%a %U' /var/lib/metropolys-companion/companion.sqlite3").stdout.split()
    assert made == ["600", "metropolys"], made


def test_the_wiring_check_runs_as_documented(pi):
    """docs/DEPLOY.md's command, as the service user with the service's settings: a pin given twice in the
    settings file is reported as such, which it can only be if that user could read the file."""
    doc = (REPO / "docs/DEPLOY.md").read_text()
    command = re.search(r"^(sudo runuser -u metropolys -- .*companion\.pi\.leds.*)$", doc, re.M)
    assert command, "docs/DEPLOY.md shows the wiring check command"
    m = pi.m
    m.sh(f"cp {SETTINGS} /root/settings.saved && "
         f"sed -i 's/^COMPANION_LED_PINS=.*/COMPANION_LED_PINS=blue=17,red=17,white=22,gray=23/' {SETTINGS}")
    try:
        done = m.sh(command.group(1).removeprefix("sudo "), check=False, timeout=60)
    finally:
        m.sh(f"cat /root/settings.saved > {SETTINGS}")
    said = done.stdout + done.stderr
    assert "Permission denied" not in said, said
    assert done.returncode == 1 and "GPIO 17 is given to two colours" in said, said


def test_install_again_keeps_settings_and_runs_again(pi):
    m = pi.m
    m.sh(f"sed -i 's/^COMPANION_LED_ACTIVE_HIGH=1/COMPANION_LED_ACTIVE_HIGH=0/' {SETTINGS}")
    before = m.sh(f"md5sum {SETTINGS} && ls -la --time-style=+ /etc/systemd/system/{SERVICE}").stdout
    t = time.monotonic()
    again = m.sh(INSTALL, env=OFFLINE, timeout=900, check=False)
    figure(f"{pi.name}: second install.sh run took {time.monotonic() - t:.1f} s")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "kept as it is" in again.stdout and RUNNING in again.stdout
    assert m.sh(f"md5sum {SETTINGS} && ls -la --time-style=+ /etc/systemd/system/{SERVICE}").stdout == before
    assert m.sh("grep -c '^metropolys:' /etc/passwd").stdout.strip() == "1"
    check_running(pi)


def test_install_fails_and_shows_the_log_when_the_server_cannot_start(pi):
    """The bookworm crash loop, provoked on purpose: a setting the server cannot read makes it exit at start."""
    m = pi.m
    m.sh(f"cp {SETTINGS} /root/settings.saved && echo COMPANION_RATE_LIMIT=fast >> {SETTINGS}")
    try:
        broken = m.sh(INSTALL, env=OFFLINE, timeout=900, check=False)
    finally:
        m.sh(f"cat /root/settings.saved > {SETTINGS}")
    assert broken.returncode == 1, broken.stdout[-2000:]
    assert RUNNING not in broken.stdout
    assert "the service does not answer on http://127.0.0.1:8000/" in broken.stderr
    assert "could not convert string to float: 'fast'" in broken.stderr, "the journal's lines are shown"
    m.sh(f"systemctl restart {SERVICE}")


def test_enabled_service_answers_after_a_reboot(pi):
    m = pi.m
    m.shutdown()
    started = time.monotonic()
    m.boot(binds={wheelhouse(pi.name): "/wheelhouse"})
    deadline = started + 60
    while m.sh(ANSWERS, check=False).returncode != 0:
        assert time.monotonic() < deadline, f"no answer 60 s after boot:\n{m.journal()}"
        time.sleep(0.2)
    figure(f"{pi.name}: first answer {time.monotonic() - started:.1f} s after the container was started")
    check_running(pi, settle=5)


@pytest.mark.parametrize("pi", ["bookworm"], indirect=True)   # NetworkManager is in the bookworm root only
def test_hotspot_refuses_without_a_wifi_device_and_writes_no_join_url(pi):
    m = pi.m
    assert m.sh("systemctl is-active NetworkManager", check=False).stdout.strip() == "active", \
        m.journal("NetworkManager")
    before = m.sh(f"md5sum {SETTINGS}").stdout
    done = m.sh(f"cd {CLONE} && bash deploy/hotspot.sh", check=False, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == ("hotspot.sh: NetworkManager sees no Wi-Fi device here (nmcli device lists none), "
                                   "so this machine cannot be a hotspot; nothing was changed."), done.stderr
    assert done.stdout == "", "no password or QR for a hotspot that cannot be"
    assert m.sh(f"md5sum {SETTINGS}").stdout == before
    assert not re.search(r"^COMPANION_JOIN_URL=", m.sh(f"cat {SETTINGS}").stdout, re.M)
    assert "metropolys-hotspot" not in m.sh("nmcli -g NAME connection show").stdout


@pytest.mark.parametrize("pi", ["bookworm"], indirect=True)   # NetworkManager is in the bookworm root only
def test_install_with_hotspot_keeps_the_server_and_says_what_failed(pi):
    m = pi.m
    done = m.sh(f"{INSTALL} --hotspot", env=OFFLINE, timeout=900, check=False)
    assert done.returncode == 1
    assert "sees no Wi-Fi device" in done.stderr and "The Wi-Fi hotspot was not set up" in done.stderr
    assert RUNNING in done.stdout
    assert not re.search(r"^COMPANION_(JOIN_URL|WIFI_PASSWORD)=", m.sh(f"cat {SETTINGS}").stdout, re.M)
    assert m.sh(ANSWERS, check=False).stdout.startswith("200 ")


FALLBACK_UNIT = "metropolys-hotspot-fallback.service"


@pytest.mark.parametrize("pi", ["bookworm"], indirect=True)   # NetworkManager is in the bookworm root only
def test_fallback_boot_unit_is_enabled_verified_and_removed_by_off(pi):
    """--fallback under real systemd and NetworkManager: the boot unit that raises the hotspot only when no known
    Wi-Fi was joined in time is installed, enabled and accepted by systemd-analyze verify; the connection never
    autoconnects by itself; --off takes unit, script and connection away. (No radio here: --no-up, and wlan0
    named; tests/test_hotspot_vm.py boots it with radios.)"""
    m = pi.m
    done = m.sh(f"cd {CLONE} && HOTSPOT_IFACE=wlan0 bash deploy/hotspot.sh --fallback --no-up", check=False, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    try:
        assert m.sh(f"systemctl is-enabled {FALLBACK_UNIT}", check=False).stdout.strip() == "enabled"
        after = m.sh(f"systemctl show -p After --value {FALLBACK_UNIT}").stdout.split()
        assert "NetworkManager.service" in after, after
        verify = m.sh(f"systemd-analyze verify /etc/systemd/system/{FALLBACK_UNIT}", check=False)
        assert verify.returncode == 0 and "metropolys" not in verify.stderr, verify.stderr
        assert m.sh("test -x /usr/local/sbin/metropolys-hotspot-fallback", check=False).returncode == 0
        profile = m.sh("nmcli -t -f connection.autoconnect,connection.autoconnect-priority "
                       "connection show metropolys-hotspot").stdout.split()
        assert profile == ["connection.autoconnect:no", "connection.autoconnect-priority:-10"], profile
    finally:
        off = m.sh(f"cd {CLONE} && bash deploy/hotspot.sh --off", check=False, timeout=60)
    assert off.returncode == 0, off.stdout + off.stderr
    assert "The hotspot is off and removed" in off.stdout
    assert m.sh(f"systemctl is-enabled {FALLBACK_UNIT}", check=False).returncode != 0
    assert m.sh(f"ls /etc/systemd/system/{FALLBACK_UNIT} /usr/local/sbin/metropolys-hotspot-fallback "
                f"/etc/systemd/system/multi-user.target.wants/{FALLBACK_UNIT}", check=False).returncode == 2
    assert "metropolys-hotspot" not in m.sh("nmcli -g NAME connection show").stdout
    assert not re.search(r"^COMPANION_(WIFI_SSID|WIFI_PASSWORD|JOIN_URL)=", m.sh(f"cat {SETTINGS}").stdout, re.M)


def test_aarch64_install_takes_lgpios_wheel_and_serves():
    """A 64-bit Raspberry Pi OS stand-in (Debian bookworm arm64, run under qemu): install.sh's Python steps resolve
    lgpio's aarch64 wheel offline, and `companion serve` answers on 127.0.0.1 when started by hand.

    It runs in the background from the start of the session (conftest.py): mostly emulated CPU work, it overlaps
    the rest of the suite; here its outcome is checked (see container_helpers.aarch64_check)."""
    check = aarch64_check()
    if check.built > 5:
        figure(f"bookworm-arm64: root, wheelhouse and the locks' venv built in {check.built:.0f} s (first run only)")
    figure(f"bookworm-arm64: install of the checkout into the cached venv and first answer under qemu took "
           f"{check.ran:.0f} s")
    assert [w for w in check.wheels if re.fullmatch(r"lgpio-.*aarch64.*\.whl", w)], check.wheels
    done = check.done
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # a binary wheel for CPython 3.11 on aarch64, not a build from the source package
    assert re.search(r"^lgpio wheel: Tag: cp311-cp311-manylinux\S*aarch64$", done.stdout, re.M), done.stdout[-3000:]
    assert re.search(r"^lgpio /opt/metropolys-companion/\.venv/\S+ aarch64$", done.stdout, re.M), done.stdout
    assert re.search(r"^200$", done.stdout, re.M)
