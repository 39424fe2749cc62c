"""deploy/ checked without booting anything (fast): scripts parse and pass shellcheck, systemd accepts the unit,
and hotspot.sh's decisions against a scripted nmcli, since no container has a Wi-Fi device to try them on.
install.sh itself is run for real in tests/test_deploy_containers.py."""
from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_qr_scan import BLOCKS, png, terminal_image, wifi_fields, zbar

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
UNIT = "/etc/systemd/system/metropolys-companion.service"
DEFAULTS = "/etc/default/metropolys-companion"
APP = "/opt/metropolys-companion"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"


@pytest.fixture(scope="module")
def unit_root(tmp_path_factory) -> Path:
    """A root holding the unit and the paths it names, for systemd-analyze's --root."""
    root = tmp_path_factory.mktemp("root")
    (root / UNIT.lstrip("/")).parent.mkdir(parents=True)
    shutil.copy(DEPLOY / "metropolys-companion.service", root / UNIT.lstrip("/"))
    exe = root / f"{APP.lstrip('/')}/.venv/bin/companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (root / "var/lib/metropolys-companion").mkdir(parents=True)
    (root / DEFAULTS.lstrip("/")).parent.mkdir(parents=True)
    (root / DEFAULTS.lstrip("/")).write_text("")
    return root


def test_scripts_parse():
    for script in ("install.sh", "hotspot.sh", "hotspot-fallback.sh", "kiosk.sh", "kiosk-autostart.sh"):
        done = subprocess.run(["bash", "-n", str(DEPLOY / script)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck is not installed here")
def test_scripts_pass_shellcheck():
    done = subprocess.run(["shellcheck", *(str(DEPLOY / s) for s in ("install.sh", "hotspot.sh", "hotspot-fallback.sh",
                                                                     "kiosk.sh", "kiosk-autostart.sh"))],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_service_settings_the_project_relies_on():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "metropolys-companion.service")
    svc = unit["Service"]
    assert svc["User"] == "metropolys" and svc["SupplementaryGroups"] == "gpio"
    assert svc["ExecStart"] == (f"{APP}/.venv/bin/companion serve --host 0.0.0.0 --port 8000 "
                                "--db /var/lib/metropolys-companion/companion.sqlite3")
    assert svc["WorkingDirectory"] == "/var/lib/metropolys-companion"
    assert svc["StateDirectory"] == "metropolys-companion"
    assert svc["ReadWritePaths"] == "/var/lib/metropolys-companion"
    assert svc["EnvironmentFile"] == f"-{DEFAULTS}"
    for key, value in {"ProtectSystem": "strict", "ProtectHome": "yes", "NoNewPrivileges": "yes",
                       "PrivateTmp": "yes", "Restart": "on-failure"}.items():
        assert svc[key] == value, key
    # what the service writes (the database with every game's secret cards, its journal) is its user's only
    assert svc["UMask"] == "0077"
    # the GPIO chips are the one device allowed (tests/test_pi_vm.py checks these against a real one)
    assert svc["DeviceAllow"] == "char-gpiochip rw"
    for hides_gpio in ("PrivateDevices", "DevicePolicy", "ProcSubset"):
        assert hides_gpio not in svc, f"{hides_gpio} would keep the service away from /dev/gpiochip*"


def test_the_serve_command_in_the_unit_is_one_the_cli_accepts():
    from companion.cli import parser

    args = parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "8000",
                                "--db", "/var/lib/metropolys-companion/companion.sqlite3"])
    assert (args.command, args.port, args.db) == ("serve", 8000, "/var/lib/metropolys-companion/companion.sqlite3")


def _verify(root: Path, unit: Path) -> subprocess.CompletedProcess:
    """systemd-analyze verify inside the throwaway root, which gets this machine's stock units
    (sysinit.target, network-online.target...) as any Debian-based root has them."""
    stock = root / "usr/lib/systemd/system"
    if not stock.exists():
        shutil.copytree("/usr/lib/systemd/system", stock, symlinks=True)
    return subprocess.run([SYSTEMD_ANALYZE, "verify", f"--root={root}", "--man=no", str(unit)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
def test_systemd_accepts_the_installed_unit(unit_root):
    unit = unit_root / UNIT.lstrip("/")
    done = _verify(unit_root, unit)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
@pytest.mark.parametrize("break_it, complaint", [
    (lambda t: t.replace("ProtectSystem=strict", "ProtectSytem=strict"), "Unknown key"),
    (lambda t: t.replace(f"{APP}/.venv/bin/companion", f"{APP}/.venv/bin/no-such-companion"), "no-such-companion"),
    (lambda t: t.replace("Restart=on-failure", "Restart=sometimes"), "restart specifier"),
])
def test_systemd_verify_does_catch_a_broken_unit(unit_root, break_it, complaint):
    """The check above means something: the same verify run fails on a damaged copy of the unit."""
    broken = unit_root / "etc/systemd/system/metropolys-broken.service"
    broken.write_text(break_it((DEPLOY / "metropolys-companion.service").read_text()))
    try:
        done = _verify(unit_root, broken)
        assert complaint in done.stderr, done.stderr
    finally:
        broken.unlink()


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
def test_hardening_keeps_the_exposure_low(unit_root):
    _verify(unit_root, unit_root / UNIT.lstrip("/"))  # puts the stock units in place
    done = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", f"--root={unit_root}",
                           "metropolys-companion.service"], capture_output=True, text=True, timeout=60)
    exposure = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", done.stdout).group(1))
    assert exposure <= 4.0, done.stdout[-2000:]


def test_kiosk_entry_opens_the_launcher():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(DEPLOY / "metropolys-kiosk.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application" and desktop["Exec"] == "/usr/local/bin/metropolys-kiosk"
    script = (DEPLOY / "kiosk.sh").read_text()
    assert "http://localhost:8000/table" in script and "--kiosk" in script   # localhost: the Pi's own screen
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(DEPLOY / "metropolys-kiosk.desktop")],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout


def test_settings_template_names_every_variable_the_docs_promise():
    template = (DEPLOY / "companion.default").read_text()
    docs = (REPO / "docs/DEPLOY.md").read_text()
    for var in ("COMPANION_LED_PINS", "COMPANION_LED_ACTIVE_HIGH", "COMPANION_LEDS", "COMPANION_JOIN_URL",
                "COMPANION_WIFI_SSID", "COMPANION_WIFI_PASSWORD"):
        assert re.search(rf"^#?{var}=", template, re.M), var
        assert var in docs, var
    from companion.pi.leds import DEFAULT_PINS, parse_pins

    pins = re.search(r"^COMPANION_LED_PINS=(.*)$", template, re.M).group(1)
    assert parse_pins(pins) == parse_pins(DEFAULT_PINS)


# hotspot.sh against a scripted nmcli: each answer is what NetworkManager prints for a Pi whose wlan0 is free.
NMCLI = r'''#!/usr/bin/env bash
printf '%s\n' "nmcli $*" >> "$STUB_LOG"
state="$STUB_DIR/connections"; touch "$state"
case "$*" in
  "-t -f RUNNING general") echo running ;;
  "radio wifi") echo "${RADIO:-enabled}" ;;
  "-t -f DEVICE,TYPE device") printf 'eth0:ethernet\n%s\nlo:loopback\n' "${WIFI_DEVICES-wlan0:wifi}" ;;
  "-g IP4.ADDRESS,IP6.ADDRESS device show wlan0") echo "192.168.1.50/24"; echo "fe80::1/64" ;;
  "-g GENERAL.STATE device show wlan0") echo "${WLAN_STATE:-30 (disconnected)}" ;;
  "-g NAME connection show") cat "$state" ;;
  "-g GENERAL.STATE connection show metropolys-hotspot") echo activated ;;
  "-g GENERAL.DEVICES connection show metropolys-hotspot") echo "${HOTSPOT_DEVICE:-}" ;;
  "connection add "*) while [ $# -gt 0 ]; do [ "$1" = con-name ] && echo "$2" >> "$state"; shift; done ;;
  "connection delete metropolys-hotspot") grep -vx metropolys-hotspot "$state" > "$state.new"; mv "$state.new" "$state" ;;
  "--wait 30 connection up metropolys-hotspot") echo "SWITCHED NOW"; exit "${UP_FAILS:-0}" ;;
esac
'''


class Hotspot:
    """hotspot.sh in a throwaway root with the scripted nmcli; every nmcli call is logged."""

    def __init__(self, tmp: Path):
        self.root, self.log, stubs = tmp / "root", tmp / "nmcli.log", tmp / "stubs"
        (self.root / "etc/default").mkdir(parents=True)
        shutil.copy(DEPLOY / "companion.default", self.root / DEFAULTS.lstrip("/"))
        stubs.mkdir()
        (stubs / "nmcli").write_text(NMCLI)
        (stubs / "systemctl").write_text('#!/bin/sh\nprintf "%s\\n" "systemctl $*" >> "$STUB_LOG"\n')
        # ss as root prints it for an SSH login: established, on port 22, owned by sshd (none unless SS_LINES says)
        (stubs / "ss").write_text('#!/bin/sh\n[ "$*" = "-Htnp state established" ] && printf "%b" "${SS_LINES:-}"\n')
        for stub in stubs.iterdir():
            stub.chmod(0o755)
        self.env = {**os.environ, "ROOT": str(self.root), "NMCLI": str(stubs / "nmcli"),
                    "SS": str(stubs / "ss"),
                    "SYSTEMCTL": str(stubs / "systemctl"), "STUB_LOG": str(self.log), "STUB_DIR": str(stubs),
                    # python3 with qrcode, as the installed venv has it
                    "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
        for cleared in ("SSH_CONNECTION", "SUDO_USER"):
            self.env.pop(cleared, None)

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        self.log.write_text("")
        return subprocess.run(["bash", str(DEPLOY / "hotspot.sh"), *args], env={**self.env, **env},
                              capture_output=True, text=True, timeout=60)

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()

    def settings(self) -> str:
        return (self.root / DEFAULTS.lstrip("/")).read_text()

    def setting(self, key: str) -> str | None:
        found = re.findall(rf"^{key}=(.*)$", self.settings(), re.M)
        assert len(found) <= 1, f"{key} set twice"
        return found[0] if found else None


@pytest.fixture
def hotspot(tmp_path):
    return Hotspot(tmp_path)


def test_hotspot_prints_its_wifi_before_switching_and_sets_safe_ciphers(hotspot, tmp_path):
    done = hotspot.run("--ssid", "Spiel;Tisch")
    assert done.returncode == 0, done.stderr
    password = hotspot.setting("COMPANION_WIFI_PASSWORD")
    assert re.fullmatch(r"[a-zA-Z2-9]{12}", password) and not set(password) & set("01lIO")
    assert hotspot.setting("COMPANION_WIFI_SSID") == "Spiel;Tisch"
    out = done.stdout
    said = out.index(f'network "Spiel;Tisch", password {password}')
    assert said < out.index("SWITCHED NOW"), "the password is shown before the link can drop"
    # the terminal QR, printed before the switch too, is one a phone camera joins with
    qr = [line for line in out[said:out.index("SWITCHED NOW")].splitlines() if line and not set(line) - set(BLOCKS)]
    path = tmp_path / "wifi.png"
    path.write_bytes(png(terminal_image(qr), scale=6))
    assert wifi_fields(zbar(path)) == {"T": "WPA", "S": "Spiel;Tisch", "P": password}
    add = next(c for c in hotspot.calls() if c.startswith("nmcli connection add"))
    # channel 6: every region allows it (NetworkManager chose 13 with the country GB; US phones never see 13)
    for pair in ("802-11-wireless.mode ap", "802-11-wireless.channel 6", "802-11-wireless-security.pairwise ccmp",
                 "802-11-wireless-security.group ccmp", "802-11-wireless-security.pmf 1",
                 "connection.autoconnect-priority 10", "ipv4.method shared", f"802-11-wireless-security.psk {password}"):
        assert f" {pair} " in f"{add} ", pair
    assert hotspot.setting("COMPANION_JOIN_URL") == "http://10.42.0.1:8000/"
    assert hotspot.calls()[-1] == "systemctl try-restart metropolys-companion.service"


def test_hotspot_run_again_keeps_the_password_and_modifies_the_connection(hotspot):
    assert hotspot.run().returncode == 0
    first = hotspot.settings()
    assert hotspot.run().returncode == 0
    assert hotspot.settings() == first
    assert any(c.startswith("nmcli connection modify metropolys-hotspot ") for c in hotspot.calls())
    assert not any(c.startswith("nmcli connection add") for c in hotspot.calls())


@pytest.mark.parametrize("how", ["rfkill", "radio"])
def test_hotspot_refuses_while_the_wifi_is_off_and_says_how_to_set_the_country(hotspot, how):
    env = {}
    if how == "rfkill":  # what a fresh Raspberry Pi OS image has until a Wi-Fi country is set
        dev = hotspot.root / "sys/class/rfkill/rfkill0"
        dev.mkdir(parents=True)
        for name, value in {"type": "wlan", "soft": "1", "hard": "0"}.items():
            (dev / name).write_text(value + "\n")
    else:
        env["RADIO"] = "disabled"
    before = hotspot.settings()
    done = hotspot.run(**env)
    assert done.returncode == 1 and done.stdout == ""
    assert "sudo raspi-config nonint do_wifi_country GB" in done.stderr and "Nothing was changed." in done.stderr
    assert hotspot.settings() == before
    assert not [c for c in hotspot.calls() if "connection" in c]


def test_hotspot_refuses_without_a_wifi_device(hotspot):
    before = hotspot.settings()
    done = hotspot.run(WIFI_DEVICES="")
    assert done.returncode == 1 and "sees no Wi-Fi device" in done.stderr
    assert hotspot.settings() == before


def test_hotspot_over_ssh_on_the_wifi_needs_yes(hotspot):
    ssh = {"SSH_CONNECTION": "192.168.1.20 52000 192.168.1.50 22"}
    done = hotspot.run(**ssh)
    assert done.returncode == 1
    assert "this SSH session will drop" in done.stderr and "--yes" in done.stderr
    password = hotspot.setting("COMPANION_WIFI_PASSWORD")
    assert f"password {password}" in done.stdout, "shown, and kept for the run with --yes"
    assert hotspot.setting("COMPANION_JOIN_URL") is None
    assert not [c for c in hotspot.calls() if c.startswith("nmcli connection") or "connection up" in c]

    done = hotspot.run("--yes", **ssh)
    assert done.returncode == 0, done.stderr
    assert hotspot.setting("COMPANION_WIFI_PASSWORD") == password
    assert hotspot.setting("COMPANION_JOIN_URL") == "http://10.42.0.1:8000/"

    # over Ethernet (another address) nothing drops, so no --yes is needed
    assert Hotspot(hotspot.root.parent / "eth").run(SSH_CONNECTION="192.168.1.20 52000 192.168.1.60 22").returncode == 0


SSHD = "0 0 {here}:22 192.168.1.20:52000 users:((\"sshd-session\",pid=812,fd=7))\\n"


@pytest.mark.parametrize("here", ["192.168.1.50", "[::ffff:192.168.1.50]", "[fe80::1%wlan0]"])
def test_hotspot_under_sudo_over_ssh_on_the_wifi_needs_yes(hotspot, here):
    """`sudo bash deploy/hotspot.sh` as DEPLOY.md says: sudo drops SSH_CONNECTION, so the SSH server's
    established connections on the Wi-Fi's address are what tell; the hint names the user who ran sudo."""
    done = hotspot.run(SUDO_USER="alice", SS_LINES=SSHD.format(here=here))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "this SSH session will drop" in done.stderr and "ssh alice@10.42.0.1" in done.stderr, done.stderr
    assert not [c for c in hotspot.calls() if "connection up" in c]
    assert hotspot.run("--yes", SUDO_USER="alice", SS_LINES=SSHD.format(here=here)).returncode == 0


def test_hotspot_under_sudo_over_ssh_on_ethernet_switches(hotspot):
    """An SSH login on another address (Ethernet) does not drop, and an outgoing SSH from the Pi is no login."""
    lines = SSHD.format(here="192.168.1.60") + "0 0 192.168.1.50:40022 192.168.1.9:22 users:((\"ssh\",pid=9,fd=3))\\n"
    done = hotspot.run(SUDO_USER="alice", SS_LINES=lines)
    assert done.returncode == 0, done.stderr
    assert "SWITCHED NOW" in done.stdout


def test_hotspot_writes_no_join_url_when_the_access_point_does_not_come_up(hotspot):
    done = hotspot.run(UP_FAILS="4")
    assert done.returncode == 1 and "did not come up" in done.stderr
    assert hotspot.setting("COMPANION_JOIN_URL") is None


def test_fallback_hotspot_ranks_below_home_wifi_and_leaves_a_connected_pi_alone(hotspot):
    hotspot.settings()
    (hotspot.root / DEFAULTS.lstrip("/")).write_text(
        hotspot.settings() + "COMPANION_JOIN_URL=http://10.42.0.1:8000/\n")  # left by an earlier plain --hotspot
    done = hotspot.run("--fallback", WLAN_STATE="100 (connected)")
    assert done.returncode == 0, done.stderr
    add = next(c for c in hotspot.calls() if c.startswith("nmcli connection add"))
    # below home, and never raised by NetworkManager itself: it did so at boot before a scan had seen home
    assert " connection.autoconnect-priority -10 " in add and " connection.autoconnect no " in add
    assert "SWITCHED NOW" not in done.stdout and "comes up by itself" in done.stdout
    assert hotspot.setting("COMPANION_JOIN_URL") is None, "the join address follows the network the Pi is on"


# The kiosk at login under labwc. labwc runs one autostart file: the user's ~/.config/labwc/autostart when it
# exists, else the system's /etc/xdg/labwc/autostart. Raspberry Pi OS's system file has the line below, which
# runs the XDG autostart entries (so /etc/xdg/autostart/metropolys-kiosk.desktop); plain labwc has no file.
PI_OS_AUTOSTART = "/usr/bin/lwrespawn /usr/bin/pcmanfm --desktop --profile LXDE-pi &\n" \
                  "/usr/bin/lwrespawn /usr/bin/wf-panel-pi &\n/usr/bin/kanshi &\n/usr/bin/lxsession-xdg-autostart\n"
OLD_DOCS_LINE = "/usr/local/bin/metropolys-kiosk &\n"  # what DEPLOY.md told people to add by hand


class Login:
    """A desktop login in a throwaway root: the autostart file labwc would run, run by sh, with the real kiosk.sh
    behind /usr/local/bin/metropolys-kiosk and a stand-in Chromium that notes each start."""

    def __init__(self, tmp: Path, system: str | None, user: str | None):
        self.root, self.tmp = tmp / "root", tmp
        self.system = self.root / "etc/xdg/labwc/autostart"
        self.user = self.root / "home/ann/.config/labwc/autostart"
        for path, text in ((self.system, system), (self.user, user)):
            if text is not None:
                path.parent.mkdir(parents=True)
                path.write_text(text)
        desktop = self.root / "etc/xdg/autostart/metropolys-kiosk.desktop"
        desktop.parent.mkdir(parents=True)
        shutil.copy(DEPLOY / "metropolys-kiosk.desktop", desktop)
        self.bin, self.runtime, self.starts = tmp / "bin", tmp / "run", tmp / "chromium.log"
        self.bin.mkdir()
        self.runtime.mkdir()
        self.release = tmp / "close-chromium"
        stubs = {
            "curl": "#!/bin/sh\nexit 0\n",  # the server answers at once
            "chromium-browser": f'#!/bin/sh\necho "$*" >> {self.starts}\n'
                        f'for i in $(seq 300); do [ -e {self.release} ] && exit 0; sleep 0.1; done\n',
            # runs each XDG autostart entry's Exec=, as Raspberry Pi OS's lxsession-xdg-autostart does
            "lxsession-xdg-autostart": f'#!/bin/sh\nfor f in {self.root}/etc/xdg/autostart/*.desktop; do\n'
                                       f'  sh -c "$(sed -n "s/^Exec=//p" "$f") &"\ndone\n',
        }
        for name, text in stubs.items():
            (self.bin / name).write_text(text)
            (self.bin / name).chmod(0o755)
        self.env = {"PATH": f"{self.bin}:/usr/bin:/bin", "XDG_RUNTIME_DIR": str(self.runtime),
                    "HOME": str(self.root / "home/ann")}

    def install(self, *args: str) -> None:
        done = subprocess.run(["bash", str(DEPLOY / "kiosk-autostart.sh"), *args],
                              env={**os.environ, "ROOT": str(self.root)}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

    def run(self) -> list[str]:
        """Log in: labwc runs its autostart file; the Chromium starts seen within a few seconds."""
        chosen = self.user if self.user.exists() else self.system
        if not chosen.exists():
            return []
        script = chosen.read_text().replace("/usr/local/bin/metropolys-kiosk", f"bash {DEPLOY / 'kiosk.sh'}") \
                                   .replace("/usr/bin/lxsession-xdg-autostart", "lxsession-xdg-autostart") \
                                   .replace("/usr/bin/", f"{self.bin}/true-")  # the rest of the desktop: nothing
        for name in ("lwrespawn", "kanshi"):
            (self.bin / f"true-{name}").write_text("#!/bin/sh\n")
            (self.bin / f"true-{name}").chmod(0o755)
        # the XDG stand-in runs the entry's Exec=, the kiosk path: point it at the real kiosk.sh too
        kiosk = self.bin / "metropolys-kiosk"
        kiosk.write_text(f"#!/bin/sh\nexec bash {DEPLOY / 'kiosk.sh'}\n")
        kiosk.chmod(0o755)
        desktop = self.root / "etc/xdg/autostart/metropolys-kiosk.desktop"
        desktop.write_text(desktop.read_text().replace("Exec=/usr/local/bin/metropolys-kiosk", f"Exec={kiosk}"))
        with open(self.tmp / "session.log", "w") as log:  # not a pipe: the kiosk lives on after sh returns
            subprocess.run(["sh", "-c", script], env=self.env, timeout=60, stdout=log, stderr=log)
        deadline = time.monotonic() + 20
        while not self.starts.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)  # a second start, if any, would show by now: the first holds the lock until released
        starts = self.starts.read_text().splitlines() if self.starts.exists() else []
        self.release.touch()
        return starts


@pytest.mark.parametrize("system, user", [
    (PI_OS_AUTOSTART, None),                        # Raspberry Pi OS as shipped
    (None, None),                                   # plain labwc: no autostart file at all
    (PI_OS_AUTOSTART, "/usr/bin/kanshi &\n"),       # the user's own file, which replaces the system one
    (PI_OS_AUTOSTART, PI_OS_AUTOSTART),             # the user's copy of the system file
    (PI_OS_AUTOSTART, PI_OS_AUTOSTART + OLD_DOCS_LINE),  # the line the old docs said to add, too
], ids=["pi-os", "plain-labwc", "own-user-file", "user-copy", "user-copy-and-old-line"])
def test_the_kiosk_starts_once_at_login_with_or_without_pi_oss_autostart_line(tmp_path, system, user):
    login = Login(tmp_path, system, user)
    login.install("add")
    login.install("add")  # install.sh run again adds nothing twice
    starts = login.run()
    assert len(starts) == 1, starts
    assert "--kiosk" in starts[0] and starts[0].endswith("http://localhost:8000/table")
    for f in (login.system, login.user):
        if f.exists():
            assert f.read_text().count("metropolys-kiosk (deploy/install.sh)") <= 1


def test_no_kiosk_takes_the_autostart_lines_out_again(tmp_path):
    login = Login(tmp_path, None, "/usr/bin/kanshi &\n")
    login.install("add")
    assert "metropolys-kiosk" in login.user.read_text() and login.system.exists()
    login.install("remove")
    assert login.user.read_text() == "/usr/bin/kanshi &\n"
    assert not login.system.exists(), "the system file it created is gone again"
    assert login.run() == []


FALLBACK_UNIT = "etc/systemd/system/metropolys-hotspot-fallback.service"
FALLBACK_SCRIPT = "usr/local/sbin/metropolys-hotspot-fallback"


def test_fallback_installs_the_boot_unit_and_plain_hotspot_or_off_removes_it(hotspot):
    """--fallback leaves raising the hotspot at boot to its own unit; plain --hotspot (autoconnect at every boot)
    and --off take it away again, and --off the connection and the Wi-Fi settings too."""
    assert hotspot.run("--fallback").returncode == 0
    unit, script = hotspot.root / FALLBACK_UNIT, hotspot.root / FALLBACK_SCRIPT
    assert unit.read_text() == (DEPLOY / "metropolys-hotspot-fallback.service").read_text()
    assert script.read_text() == (DEPLOY / "hotspot-fallback.sh").read_text() and os.access(script, os.X_OK)
    assert "systemctl enable metropolys-hotspot-fallback.service" in hotspot.calls()

    done = hotspot.run()
    assert done.returncode == 0, done.stderr
    assert not unit.exists() and not script.exists()
    assert "systemctl disable metropolys-hotspot-fallback.service" in hotspot.calls()
    add_or_modify = next(c for c in hotspot.calls() if c.startswith("nmcli connection modify"))
    assert " connection.autoconnect yes " in add_or_modify and " connection.autoconnect-priority 10 " in add_or_modify

    assert hotspot.run("--fallback").returncode == 0 and unit.exists()
    done = hotspot.run("--off")
    assert done.returncode == 0, done.stderr
    assert "The hotspot is off and removed" in done.stdout
    assert not unit.exists() and not script.exists()
    assert "nmcli connection delete metropolys-hotspot" in hotspot.calls()
    for key in ("COMPANION_WIFI_SSID", "COMPANION_WIFI_PASSWORD", "COMPANION_JOIN_URL"):
        assert hotspot.setting(key) is None, key
    assert hotspot.calls()[-1] == "systemctl try-restart metropolys-companion.service"


def test_off_over_ssh_on_the_hotspot_needs_yes(hotspot):
    assert hotspot.run("--fallback").returncode == 0
    ssh = {"SUDO_USER": "alice", "HOTSPOT_DEVICE": "wlan0", "SS_LINES": SSHD.format(here="192.168.1.50")}
    done = hotspot.run("--off", **ssh)
    assert done.returncode == 1 and "this SSH session will drop" in done.stderr, done.stdout + done.stderr
    assert (hotspot.root / FALLBACK_UNIT).exists() and hotspot.setting("COMPANION_WIFI_PASSWORD")
    assert not [c for c in hotspot.calls() if "delete" in c]
    assert hotspot.run("--off", "--yes", **ssh).returncode == 0
    assert not (hotspot.root / FALLBACK_UNIT).exists()


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
def test_systemd_accepts_the_fallback_unit(unit_root):
    unit = unit_root / FALLBACK_UNIT
    shutil.copy(DEPLOY / "metropolys-hotspot-fallback.service", unit)
    exe = unit_root / FALLBACK_SCRIPT
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    done = _verify(unit_root, unit)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    exe.unlink()
    assert "metropolys-hotspot-fallback" in _verify(unit_root, unit).stderr, "verify sees a missing script"


# hotspot-fallback.sh against a scripted nmcli: wlan0's state in each second since the start comes from a list
# (line k+1 for second k, the last line ever after), by the clock, not by the count of polls: on loaded cores a
# poll can take longer than the script's second, and the script decides by the clock too.
FALLBACK_NMCLI = r'''#!/usr/bin/env bash
printf '%s\n' "$SECONDS nmcli $*" >> "$STUB_LOG"
case "$*" in
  "-g connection.interface-name connection show metropolys-hotspot") echo wlan0 ;;
  "-g GENERAL.STATE device show wlan0")
    [ -f "$STATES.joined" ] && { echo "100 (connected)"; exit 0; }
    n=$(( $(date +%s) - STARTED + 1 )); sed -n "${n}p" "$STATES" | grep . || tail -n 1 "$STATES" ;;
  "-g GENERAL.CONNECTION device show wlan0") echo home ;;
  "--wait 60 connection up metropolys-hotspot") echo "HOTSPOT UP" ;;
  "--wait "*" connection up home")
    [ -n "${HOME_FAILS:-}" ] && { echo "Error: Connection activation failed: Secrets were required" >&2; exit 4; }
    touch "$STATES.joined"; echo "HOME UP" ;;
esac
'''


@pytest.mark.parametrize("states, up, after", [
    (["20 (unavailable)", "30 (disconnected)", "100 (connected)"], False, 3),    # home joined: no hotspot
    (["30 (disconnected)"], True, 3),                                           # no known Wi-Fi: hotspot
    (["30 (disconnected)"] * 3 + ["70 (connecting (getting IP configuration))"] * 2 + ["100 (connected)"], False, 6),
    (["30 (disconnected)"] * 3 + ["70 (connecting (getting IP configuration))"] * 9, True, 3 + 10),
    (["--"] * 8 + ["30 (disconnected)"], True, 7),  # the radio late (no device yet): an access point needs it there first
], ids=["home", "no-home", "late-lease-waited-for", "stuck-join-bounded", "radio-late"])
def test_fallback_unit_waits_for_a_known_wifi_before_raising_the_hotspot(tmp_path, states, up, after):
    """The boot unit's script with WAIT=3, SETTLE=10 (30 and 30 installed): a joined network wins; the hotspot
    comes only when none joined in time; a join under way at the deadline gets SETTLE more, no longer."""
    stub, log, listed = tmp_path / "nmcli", tmp_path / "nmcli.log", tmp_path / "states"
    stub.write_text(FALLBACK_NMCLI)
    stub.chmod(0o755)
    listed.write_text("\n".join(states) + "\n")
    log.write_text("")
    started = time.monotonic()
    done = subprocess.run(["bash", str(DEPLOY / "hotspot-fallback.sh")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NMCLI": str(stub), "STUB_LOG": str(log), "STATES": str(listed),
                               "STARTED": str(int(time.time())), "WAIT": "3", "SETTLE": "10"})
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert ("HOTSPOT UP" in done.stdout) == up, done.stdout
    polls = [c for c in log.read_text().splitlines() if "GENERAL.STATE" in c]
    if up:
        assert "joined no known network" in done.stdout
        assert took >= after - 1, "not before the time is up (nor before the radio is there)"
        assert len(polls) <= max(after + 2, len(states)), "a join that never ends holds it back no longer than SETTLE"
    else:
        assert 'joined "home"' in done.stdout
        # not before home was joined (its line's second, less the stub's start rounded down to a whole second)
        assert took >= states.index("100 (connected)") - 2 and len(polls) <= len(states) + 1, (took, polls)


@pytest.mark.parametrize("fails", [False, True], ids=["joined-the-second-time", "fails-again"])
def test_fallback_unit_tries_a_failed_join_once_more_before_the_hotspot(tmp_path, fails):
    """A join under way that falls back to "disconnected" (the router dropped the Pi during its lease: NetworkManager
    then waits for a new password and never tries that network again, seen once in the Wi-Fi VM) is tried once
    more with `nmcli connection up`: joined, no hotspot; failed again, the hotspot at WAIT as before, no third try."""
    stub, log, listed = tmp_path / "nmcli", tmp_path / "nmcli.log", tmp_path / "states"
    stub.write_text(FALLBACK_NMCLI)
    stub.chmod(0o755)
    listed.write_text("30 (disconnected)\n50 (connecting (configuring))\n60 (connecting (need authentication))\n"
                      "30 (disconnected)\n")
    log.write_text("")
    started = time.monotonic()
    done = subprocess.run(["bash", str(DEPLOY / "hotspot-fallback.sh")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NMCLI": str(stub), "STUB_LOG": str(log), "STATES": str(listed),
                               "STARTED": str(int(time.time())), "WAIT": "6", "SETTLE": "10", "RETRY": "5",
                               **({"HOME_FAILS": "1"} if fails else {})})
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    retries = [c for c in log.read_text().splitlines() if "connection up home" in c]
    assert len(retries) == 1 and "--wait 5 connection up home" in retries[0], retries
    assert 'joining "home" failed' in done.stdout, done.stdout
    if fails:
        assert "HOTSPOT UP" in done.stdout and took >= 6 - 1, (done.stdout, took)
    else:
        assert 'wlan0 joined "home"' in done.stdout and "HOTSPOT UP" not in done.stdout, done.stdout
        assert took < 6, took                       # joined at the retry, before the hotspot's time


def test_fallback_unit_looks_every_poll_seconds_and_still_decides_at_its_wait(tmp_path):
    """POLL= (the Wi-Fi VM sets 5: each look is an nmcli run, a second of emulated CPU): fewer looks, the same
    decision, no sooner than WAIT and within one look of it."""
    stub, log, listed = tmp_path / "nmcli", tmp_path / "nmcli.log", tmp_path / "states"
    stub.write_text(FALLBACK_NMCLI)
    stub.chmod(0o755)
    listed.write_text("30 (disconnected)\n")
    log.write_text("")
    started = time.monotonic()
    done = subprocess.run(["bash", str(DEPLOY / "hotspot-fallback.sh")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "NMCLI": str(stub), "STUB_LOG": str(log), "STATES": str(listed),
                               "STARTED": str(int(time.time())), "WAIT": "6", "SETTLE": "10", "POLL": "3"})
    took = time.monotonic() - started
    assert done.returncode == 0 and "HOTSPOT UP" in done.stdout, (done.stdout, done.stderr)
    polls = [c for c in log.read_text().splitlines() if "GENERAL.STATE" in c]
    # looks at 0, 3 and 6 s (the last one decides), and the radio's check after it: not the 7 or 8 of POLL=1
    assert 3 <= len(polls) <= 4, polls
    assert 6 <= took < 6 + 3 + 2, took
