#!/usr/bin/env bash
# Installs the Metropolys table companion on Raspberry Pi OS Bookworm or Trixie, or updates it; safe to run again.
#   sudo bash deploy/install.sh [--no-kiosk] [--hotspot [--fallback] [--ssid NAME] [--yes]]
# It says "running" only once the server answers on http://127.0.0.1:8000/; otherwise it prints the
# service's last log lines and exits non-zero. Without lgpio the LEDs stay off, never the install.
# tests/test_deploy_containers.py runs it for real on Debian bookworm and trixie booted with systemd.
set -euo pipefail

APP=/opt/metropolys-companion
VENV=$APP/.venv
STATE=/var/lib/metropolys-companion
DEFAULTS=/etc/default/metropolys-companion
UNIT=/etc/systemd/system/metropolys-companion.service
KIOSK=/usr/local/bin/metropolys-kiosk
AUTOSTART=/etc/xdg/autostart/metropolys-kiosk.desktop
ACCOUNT=metropolys
SERVICE=metropolys-companion.service
URL=http://127.0.0.1:8000/
WAIT=${COMPANION_INSTALL_WAIT:-90}   # seconds the server may take to answer (a Zero 2 W needs ~15)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

HOTSPOT=0
KIOSK_ON=1
HOTSPOT_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --hotspot) HOTSPOT=1; shift ;;
        --ssid) HOTSPOT_ARGS+=(--ssid "${2:?--ssid needs a name}"); shift 2 ;;
        --fallback|--yes) HOTSPOT_ARGS+=("$1"); shift ;;
        --no-kiosk) KIOSK_ON=0; shift ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (known: --no-kiosk, --hotspot, --fallback, --ssid NAME, --yes)" >&2
           exit 2 ;;
    esac
done
if [ ${#HOTSPOT_ARGS[@]} -gt 0 ] && [ "$HOTSPOT" = 0 ]; then
    echo "install.sh: --ssid, --fallback and --yes go with --hotspot" >&2
    exit 2
fi

if [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root: sudo bash $0 $*" >&2
    exit 1
fi
umask 022
step() { printf '==> %s\n' "$*"; }

step "Python venv support"
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    apt-get install -y python3-venv
fi

step "System user $ACCOUNT in the gpio group"
if ! getent group gpio >/dev/null; then
    groupadd --system gpio
fi
if ! getent passwd "$ACCOUNT" >/dev/null; then
    useradd --system --user-group --groups gpio --home-dir "$STATE" --no-create-home \
        --shell /usr/sbin/nologin "$ACCOUNT"
elif ! id -nG "$ACCOUNT" | tr ' ' '\n' | grep -qx gpio; then
    usermod --append --groups gpio "$ACCOUNT"
fi

step "Project files in $APP"
mkdir -p "$APP"
if [ "$(cd "$APP" && pwd -P)" != "$(cd "$SRC" && pwd -P)" ]; then
    find "$APP" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=__pycache__ --exclude='*.pyc' \
        --exclude=.pytest_cache --exclude=.hypothesis --exclude=./build --exclude='*.egg-info' \
        --exclude='*.sqlite3' --exclude='.lgd-nfy*' --exclude=./test-results -cf - . \
        | tar -C "$APP" --no-same-owner --no-same-permissions -xf -
fi

step "Python environment in $VENV"
# --system-site-packages: the venv sees the OS's python3-lgpio, which Raspberry Pi OS preinstalls
# (Raspberry Pi's documentation advises this for GPIO libraries). A venv made without it, or by
# another Python (after an upgrade from Bookworm to Trixie), is made again.
system_python=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if ! venv_python=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) \
   || [ "$venv_python" != "$system_python" ] \
   || ! grep -qx 'include-system-site-packages *= *true' "$VENV/pyvenv.cfg"; then
    rm -rf "$VENV"
    python3 -m venv --system-site-packages "$VENV"
fi
# The exact versions CI tested (requirements/run.txt: every file's hash checked), then the companion itself
# built with the locked setuptools, its dependencies untouched: a reinstall on another day installs the same.
"$VENV/bin/python" -m pip install --disable-pip-version-check --require-hashes -r "$APP/requirements/run.txt"
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall "$APP"

step "GPIO library for the LEDs (lgpio)"
LEDS_OFF=""
if "$VENV/bin/python" -c 'import lgpio' 2>/dev/null; then
    echo "lgpio is there: $("$VENV/bin/python" -c 'import lgpio; print(lgpio.__file__)')"
elif "$VENV/bin/python" -m pip install --disable-pip-version-check --only-binary=:all: --require-hashes \
        -r "$APP/requirements/pi.txt"; then
    echo "lgpio installed from a ready-built wheel"
else
    # PyPI's lgpio wheels stop at Python 3.12, and building its source needs liblgpio-dev,
    # which only Raspberry Pi's own archive has: so no compiling here, just the plain sentence.
    LEDS_OFF="The LEDs are off: there is no lgpio for Python $system_python here; install it with 'sudo apt install python3-lgpio' (Raspberry Pi OS) and run this script again."
    echo "$LEDS_OFF"
fi

step "State directory $STATE"
install -d -m 0750 -o "$ACCOUNT" -g "$ACCOUNT" "$STATE"

step "Settings in $DEFAULTS"
if [ ! -f "$DEFAULTS" ]; then
    install -D -m 0640 "$SRC/deploy/companion.default" "$DEFAULTS"
else
    echo "kept as it is"
fi
# root writes it; the service user may read it (it gets all of it through EnvironmentFile= anyway),
# so the LED wiring check can run as that user with these settings
chown "root:$ACCOUNT" "$DEFAULTS"
chmod 0640 "$DEFAULTS"

step "Service and kiosk"
install -D -m 0644 "$SRC/deploy/metropolys-companion.service" "$UNIT"
if [ "$KIOSK_ON" = 1 ]; then
    install -D -m 0755 "$SRC/deploy/kiosk.sh" "$KIOSK"
    install -D -m 0644 "$SRC/deploy/metropolys-kiosk.desktop" "$AUTOSTART"
else
    rm -f "$KIOSK" "$AUTOSTART"
fi

answers() {  # true when the server gives an HTTP answer on 127.0.0.1:8000
    "$VENV/bin/python" - "$URL" <<'EOF' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=3).read()
EOF
}

wait_for_server() {  # until it answers; on a crash loop or after $WAIT seconds: its log, and exit 1
    local deadline=$((SECONDS + WAIT)) restarts
    until answers; do
        restarts=$(systemctl show -p NRestarts --value "$SERVICE")
        if [ "$SECONDS" -ge "$deadline" ] || [ "${restarts:-0}" != 0 ] || systemctl -q is-failed "$SERVICE"; then
            echo
            echo "install.sh: the service does not answer on $URL ($(systemctl is-active "$SERVICE"), restarted ${restarts:-?} times). Its last log lines:" >&2
            journalctl -u "$SERVICE" -n 40 --no-pager >&2 || true
            exit 1
        fi
        sleep 1
    done
}

step "Starting $SERVICE"
systemctl daemon-reload
systemctl enable "$SERVICE"
systemctl restart "$SERVICE"  # on a re-install, this picks up the new code
started=$SECONDS
wait_for_server
echo "answers on $URL after $((SECONDS - started)) s"

HOTSPOT_FAILED=0
if [ "$HOTSPOT" = 1 ]; then
    # last, once the server runs: over SSH on Wi-Fi the link may drop here
    step "Wi-Fi hotspot"
    if bash "$SRC/deploy/hotspot.sh" "${HOTSPOT_ARGS[@]}"; then
        wait_for_server  # hotspot.sh restarted the service so it shows the Wi-Fi QR
    else
        HOTSPOT_FAILED=1
    fi
fi

JOIN=$(sed -n 's/^COMPANION_JOIN_URL=//p' "$DEFAULTS" | tail -n 1)
if [ -z "$JOIN" ]; then
    # the address of the interface the default route leaves by (a UDP connect sends nothing)
    ADDRESS=$(python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("192.0.2.1", 9)); print(s.getsockname()[0])' \
        2>/dev/null || true)
    [ -n "$ADDRESS" ] && JOIN="http://$ADDRESS:8000/"
fi
echo
if [ -n "$JOIN" ]; then
    echo "Metropolys companion is running. Players join at: $JOIN"
else
    echo "Metropolys companion is running, but this Pi has no network address yet: phones can join once it has one."
fi
echo "Table view on the Pi: $URL""table   Logs: journalctl -u metropolys-companion -f"
if [ -n "$LEDS_OFF" ]; then
    echo "$LEDS_OFF"
fi
if [ "$HOTSPOT_FAILED" = 1 ]; then
    echo "The Wi-Fi hotspot was not set up (the reason is above); the companion runs on the network this Pi is on." >&2
    exit 1
fi
