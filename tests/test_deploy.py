"""deploy/: install.sh run for real in a throwaway root (system commands recorded), units checked by systemd."""
from __future__ import annotations

import configparser
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
INSTALL = DEPLOY / "install.sh"
UNIT = "/etc/systemd/system/metropolys-companion.service"
AUTOSTART = "/etc/xdg/autostart/metropolys-kiosk.desktop"
DEFAULTS = "/etc/default/metropolys-companion"
APP = "/opt/metropolys-companion"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"

# Each stub records its argv to $STUB_LOG, then does to the throwaway root what the real command would.
STUBS = {
    "systemctl": "",
    "chown": "",
    "apt-get": "",
    "groupadd": 'echo "gpio:x:997:" >> "$FAKE_ROOT/etc/group"',
    "useradd": r'''name="${@: -1}"
echo "$name:x:999:999::/var/lib/metropolys-companion:/usr/sbin/nologin" >> "$FAKE_ROOT/etc/passwd"
echo "$name:x:999:" >> "$FAKE_ROOT/etc/group"
sed -i -E "s/^(gpio:[^:]*:[^:]*:)$/\1$name/; t; s/^(gpio:.*)$/\1,$name/" "$FAKE_ROOT/etc/group"''',
    "usermod": r'''name="${@: -1}"
sed -i -E "s/^(gpio:[^:]*:[^:]*:)$/\1$name/; t; s/^(gpio:.*)$/\1,$name/" "$FAKE_ROOT/etc/group"''',
    "pip": r'''bin="$FAKE_ROOT/opt/metropolys-companion/.venv/bin"
printf '#!/bin/sh\nexec python3 -m companion.cli "$@"\n' > "$bin/companion"
chmod 755 "$bin/companion"''',
    "hostname": 'echo "192.168.1.23 fd00::23"',
    "nmcli": r'''state="$STUB_DIR/nm-connections"; touch "$state"
if [ "$1 $2 $3" = "-g NAME connection" ]; then cat "$state"; fi
if [ "$1 $2" = "connection add" ]; then
  while [ $# -gt 0 ]; do [ "$1" = con-name ] && echo "$2" >> "$state"; shift; done
fi''',
}
# Real commands install.sh must never reach in a test run: they sit first on PATH and fail loudly.
TRIPWIRES = ["systemctl", "useradd", "groupadd", "usermod", "nmcli", "apt-get", "pip", "pip3"]


def make_stubs(where: Path) -> dict[str, str]:
    stubs, trip = where / "stubs", where / "tripwires"
    stubs.mkdir()
    trip.mkdir()
    for name, body in STUBS.items():
        path = stubs / name
        path.write_text(f'#!/usr/bin/env bash\nprintf "%s\\n" "{name} $*" >> "$STUB_LOG"\n{body}\n')
        path.chmod(0o755)
    for name in TRIPWIRES:
        path = trip / name
        path.write_text(f'#!/bin/sh\necho "UNSTUBBED {name} $*" >> "$STUB_LOG"\nexit 97\n')
        path.chmod(0o755)
    return {
        "SYSTEMCTL": str(stubs / "systemctl"), "USERADD": str(stubs / "useradd"),
        "GROUPADD": str(stubs / "groupadd"), "USERMOD": str(stubs / "usermod"),
        "CHOWN": str(stubs / "chown"), "PIP": str(stubs / "pip"), "NMCLI": str(stubs / "nmcli"),
        "HOSTNAME_CMD": str(stubs / "hostname"), "APT_GET": str(stubs / "apt-get"),
        "PYTHON": sys.executable, "STUB_DIR": str(stubs), "PATH": f"{trip}:{os.environ['PATH']}",
    }


def fresh_pi(root: Path) -> None:
    """The few files of a fresh Raspberry Pi OS that install.sh reads: users and groups."""
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\ngpio:x:997:pi\npi:x:1000:\n")


def snapshot(where: Path) -> Path:
    """A still copy of this checkout, so files others are editing cannot change between two installs."""
    src = where / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "*.sqlite3", "node_modules"))
    return src


class Box:
    """A throwaway root with stubbed system commands, where install.sh can be run again and again."""

    def __init__(self, tmp: Path):
        self.tmp, self.root, self.log = tmp, tmp / "root", tmp / "commands.log"
        self.src = snapshot(tmp)
        fresh_pi(self.root)
        self.env = {**os.environ, **make_stubs(tmp), "ROOT": str(self.root),
                    "FAKE_ROOT": str(self.root), "STUB_LOG": str(self.log)}

    def install(self, *args: str) -> tuple[list[str], str]:
        """Run install.sh once; return the commands it asked for and what it printed."""
        self.log.write_text("")
        done = subprocess.run(["bash", str(self.src / "deploy/install.sh"), *args], env=self.env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        commands = self.log.read_text().splitlines()
        assert not [c for c in commands if c.startswith("UNSTUBBED")], commands
        return [c.replace(str(self.root), "$ROOT") for c in commands], done.stdout

    def files(self) -> dict[str, tuple[int, bytes]]:
        """Every file install.sh left (mode and content), apart from the venv Python made."""
        out = {}
        for path in sorted(self.root.rglob("*")):
            rel = "/" + str(path.relative_to(self.root))
            if path.is_file() and not rel.startswith(f"{APP}/.venv/"):
                out[rel] = (stat.S_IMODE(path.stat().st_mode), path.read_bytes())
        return out


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    return Box(tmp_path_factory.mktemp("pi"))


@pytest.fixture(scope="module")
def first(box):
    """The first install on the fresh Pi, and the files it left."""
    commands, out = box.install()
    return commands, out, box.files()


def test_scripts_parse():
    for script in ("install.sh", "hotspot.sh", "kiosk.sh"):
        done = subprocess.run(["bash", "-n", str(DEPLOY / script)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not shutil.which("shellcheck"), reason="shellcheck is not installed here")
def test_scripts_pass_shellcheck():
    done = subprocess.run(["shellcheck", *(str(DEPLOY / s) for s in ("install.sh", "hotspot.sh", "kiosk.sh"))],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_first_install_asks_for_the_right_commands(box, first):
    commands, out, _ = first
    assert commands == [
        "useradd --system --user-group --groups gpio --home-dir /var/lib/metropolys-companion "
        "--no-create-home --shell /usr/sbin/nologin metropolys",
        f"pip install --disable-pip-version-check --upgrade $ROOT{APP}[pi]",
        "chown metropolys:metropolys $ROOT/var/lib/metropolys-companion",
        "systemctl daemon-reload",
        "systemctl enable metropolys-companion.service",
        "systemctl restart metropolys-companion.service",
        "hostname -I",
    ]
    assert "Players join at: http://192.168.1.23:8000/" in out


def test_first_install_leaves_the_right_files(box, first):
    files = first[2]
    assert files[UNIT] == (0o644, (DEPLOY / "metropolys-companion.service").read_bytes())
    assert files[AUTOSTART] == (0o644, (DEPLOY / "metropolys-kiosk.desktop").read_bytes())
    assert files["/usr/local/bin/metropolys-kiosk"] == (0o755, (DEPLOY / "kiosk.sh").read_bytes())
    assert files[DEFAULTS] == (0o600, (DEPLOY / "companion.default").read_bytes())
    for source in ("pyproject.toml", "README.md", "companion/leds.py", "companion/game/data/metropolys-board.json"):
        assert files[f"{APP}/{source}"][1] == (box.src / source).read_bytes(), source
    assert not [f for f in files if f.startswith(f"{APP}/.git/") or "__pycache__" in f]
    assert (box.root / APP.lstrip("/") / ".venv/bin/python").exists(), "a real venv was made"
    assert (box.root / "var/lib/metropolys-companion").is_dir()
    assert "metropolys:x:" in (box.root / "etc/passwd").read_text()
    assert re.search(r"^gpio:x:997:pi,metropolys$", (box.root / "etc/group").read_text(), re.M)


def test_second_install_changes_nothing_and_creates_nothing_again(box, first):
    commands, out, files = first
    again, out_again = box.install()
    assert box.files() == files
    assert again == [c for c in commands if not c.startswith("useradd")]
    assert out_again == out.replace("==> Settings in /etc/default/metropolys-companion\n",
                                    "==> Settings in /etc/default/metropolys-companion\nkept as it is\n")


def test_install_keeps_edited_settings(box, first):
    settings = box.root / DEFAULTS.lstrip("/")
    edited = settings.read_text().replace("COMPANION_LED_ACTIVE_HIGH=1", "COMPANION_LED_ACTIVE_HIGH=0")
    settings.write_text(edited)
    box.install()
    assert settings.read_text() == edited


def test_install_adds_an_existing_user_to_gpio(tmp_path):
    box = Box(tmp_path)
    (box.root / "etc/passwd").write_text("metropolys:x:999:999::/var/lib/metropolys-companion:/usr/sbin/nologin\n")
    (box.root / "etc/group").write_text("gpio:x:997:\nmetropolys:x:999:\n")
    commands, _ = box.install("--no-kiosk")
    assert commands[0] == "usermod --append --groups gpio metropolys"
    assert "gpio:x:997:metropolys" in (box.root / "etc/group").read_text()
    assert not (box.root / AUTOSTART.lstrip("/")).exists()


def test_unknown_option_is_refused_with_a_sentence_and_changes_nothing(tmp_path):
    box = Box(tmp_path)
    done = subprocess.run(["bash", str(INSTALL), "--hotpsot"], env=box.env, capture_output=True, text=True)
    assert done.returncode == 2 and "unknown option --hotpsot" in done.stderr
    assert sorted(p.name for p in box.root.iterdir()) == ["etc"]
    assert box.log.exists() is False or box.log.read_text() == ""


def test_hotspot_is_made_once_and_its_password_kept(tmp_path):
    box = Box(tmp_path)
    commands, out = box.install("--hotspot", "--ssid", "Metropolys-Table")
    settings = (box.root / DEFAULTS.lstrip("/")).read_text()
    password = re.search(r"^COMPANION_WIFI_PASSWORD=(\S+)$", settings, re.M).group(1)
    assert re.fullmatch(r"[a-zA-Z2-9]{12}", password) and not set(password) & set("01lIO")
    assert re.search(r"^COMPANION_WIFI_SSID=Metropolys-Table$", settings, re.M)
    assert re.search(r"^COMPANION_JOIN_URL=http://10\.42\.0\.1:8000/$", settings, re.M)
    assert settings.count("COMPANION_WIFI_PASSWORD=") == 1, "the commented example is replaced, not kept"
    nm = [c for c in commands if c.startswith("nmcli")]
    assert nm[0] == "nmcli -g NAME connection show"
    assert nm[1].startswith("nmcli connection add type wifi con-name metropolys-hotspot ifname wlan0 ")
    assert "802-11-wireless.mode ap" in nm[1] and f"wifi-sec.psk {password}" in nm[1]
    assert "ipv4.method shared" in nm[1]
    assert nm[2] == "nmcli connection up metropolys-hotspot"
    assert commands.index(nm[2]) < commands.index("systemctl restart metropolys-companion.service"), \
        "the service must start after the Wi-Fi settings are written, to read them"
    assert "Players join at: http://10.42.0.1:8000/" in out
    files = box.files()

    again, _ = box.install("--hotspot", "--ssid", "Metropolys-Table")
    assert box.files() == files, "same password, same files"
    nm_again = [c for c in again if c.startswith("nmcli")]
    assert nm_again[1] == nm[1].replace("connection add type wifi con-name metropolys-hotspot ifname wlan0",
                                        "connection modify metropolys-hotspot")


def _unit_paths(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w:])(/[\w./-]+)", "\n".join(
        line for line in text.splitlines() if not line.lstrip().startswith("#"))))


def test_every_path_the_units_name_is_one_install_creates(box, first):
    unit = (DEPLOY / "metropolys-companion.service").read_text()
    desktop = (DEPLOY / "metropolys-kiosk.desktop").read_text()
    named = _unit_paths(unit) | _unit_paths(desktop)
    assert {f"{APP}/.venv/bin/companion", "/var/lib/metropolys-companion", DEFAULTS,
            "/usr/local/bin/metropolys-kiosk"} <= named
    for path in named:
        if path == "/var/lib/metropolys-companion/companion.sqlite3":
            continue  # the server makes its database on first start
        assert (box.root / path.lstrip("/")).exists(), f"{path} is named by a unit but install.sh did not make it"


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
    for hides_gpio in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
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
def test_systemd_accepts_the_installed_unit(box, first):
    unit = box.root / UNIT.lstrip("/")
    done = _verify(box.root, unit)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
@pytest.mark.parametrize("break_it, complaint", [
    (lambda t: t.replace("ProtectSystem=strict", "ProtectSytem=strict"), "Unknown key"),
    (lambda t: t.replace(f"{APP}/.venv/bin/companion", f"{APP}/.venv/bin/no-such-companion"), "no-such-companion"),
    (lambda t: t.replace("Restart=on-failure", "Restart=sometimes"), "restart specifier"),
])
def test_systemd_verify_does_catch_a_broken_unit(box, first, break_it, complaint):
    """The check above means something: the same verify run fails on a damaged copy of the unit."""
    broken = box.root / "etc/systemd/system/metropolys-broken.service"
    broken.write_text(break_it((DEPLOY / "metropolys-companion.service").read_text()))
    try:
        done = _verify(box.root, broken)
        assert complaint in done.stderr, done.stderr
    finally:
        broken.unlink()


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed here")
def test_hardening_keeps_the_exposure_low(box, first):
    _verify(box.root, box.root / UNIT.lstrip("/"))  # puts the stock units in place
    done = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", f"--root={box.root}",
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
    assert "http://127.0.0.1:8000/table" in script and "--kiosk" in script
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
    from companion.leds import DEFAULT_PINS, parse_pins

    pins = re.search(r"^COMPANION_LED_PINS=(.*)$", template, re.M).group(1)
    assert parse_pins(pins) == parse_pins(DEFAULT_PINS)
