#!/usr/bin/env bash
# Installs the Metropolys table companion on Raspberry Pi OS Bookworm, or updates it; safe to run again.
#   sudo deploy/install.sh [--hotspot [--ssid NAME]] [--no-kiosk]
# Every file written goes under $ROOT (or $DESTDIR) when set, and every system command can be
# swapped (SYSTEMCTL, USERADD, GROUPADD, USERMOD, CHOWN, PYTHON, PIP, NMCLI, HOSTNAME_CMD, APT_GET),
# so tests/test_deploy.py can run it in a throwaway root.
set -euo pipefail

ROOT=${ROOT:-${DESTDIR:-}}
SYSTEMCTL=${SYSTEMCTL:-systemctl}
USERADD=${USERADD:-useradd}
GROUPADD=${GROUPADD:-groupadd}
USERMOD=${USERMOD:-usermod}
CHOWN=${CHOWN:-chown}
PYTHON=${PYTHON:-python3}
NMCLI=${NMCLI:-nmcli}
HOSTNAME_CMD=${HOSTNAME_CMD:-hostname}
APT_GET=${APT_GET:-apt-get}

APP=/opt/metropolys-companion
VENV=$APP/.venv
STATE=/var/lib/metropolys-companion
DEFAULTS=/etc/default/metropolys-companion
UNIT=/etc/systemd/system/metropolys-companion.service
KIOSK=/usr/local/bin/metropolys-kiosk
AUTOSTART=/etc/xdg/autostart/metropolys-kiosk.desktop
ACCOUNT=metropolys
SERVICE=metropolys-companion.service
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PIP=${PIP:-$ROOT$VENV/bin/pip}

HOTSPOT=0
KIOSK_ON=1
SSID=Metropolys
while [ $# -gt 0 ]; do
    case "$1" in
        --hotspot) HOTSPOT=1; shift ;;
        --ssid) SSID=${2:?--ssid needs a name}; shift 2 ;;
        --no-kiosk) KIOSK_ON=0; shift ;;
        -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (known: --hotspot, --ssid NAME, --no-kiosk)" >&2; exit 2 ;;
    esac
done

if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root: sudo $0 $*" >&2
    exit 1
fi
umask 022
step() { printf '==> %s\n' "$*"; }

step "Python venv support"
if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    "$APT_GET" install -y python3-venv
fi

step "System user $ACCOUNT in the gpio group"
has_line() { [ -f "$ROOT$2" ] && grep -q "^$1:" "$ROOT$2"; }
if ! has_line gpio /etc/group; then
    "$GROUPADD" --system gpio
fi
if ! has_line "$ACCOUNT" /etc/passwd; then
    "$USERADD" --system --user-group --groups gpio --home-dir "$STATE" --no-create-home \
        --shell /usr/sbin/nologin "$ACCOUNT"
elif ! grep -qE "^gpio:[^:]*:[^:]*:(.*,)?$ACCOUNT(,.*)?$" "$ROOT/etc/group"; then
    "$USERMOD" --append --groups gpio "$ACCOUNT"
fi

step "Project files in $APP"
mkdir -p "$ROOT$APP"
if [ "$(cd "$ROOT$APP" && pwd -P)" != "$(cd "$SRC" && pwd -P)" ]; then
    find "$ROOT$APP" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=__pycache__ --exclude='*.pyc' \
        --exclude=.pytest_cache --exclude=.hypothesis --exclude=./build --exclude='*.egg-info' \
        --exclude='*.sqlite3' --exclude=./test-results -cf - . \
        | tar -C "$ROOT$APP" --no-same-owner --no-same-permissions -xf -
fi

step "Python environment in $VENV"
if [ ! -x "$ROOT$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$ROOT$VENV"
fi
"$PIP" install --disable-pip-version-check --upgrade "${ROOT}${APP}[pi]"

step "State directory $STATE"
install -d -m 0750 "$ROOT$STATE"
"$CHOWN" "$ACCOUNT:$ACCOUNT" "$ROOT$STATE"

step "Settings in $DEFAULTS"
if [ ! -f "$ROOT$DEFAULTS" ]; then
    install -D -m 0600 "$SRC/deploy/companion.default" "$ROOT$DEFAULTS"
else
    echo "kept as it is"
fi

step "Service and kiosk"
install -D -m 0644 "$SRC/deploy/metropolys-companion.service" "$ROOT$UNIT"
if [ "$KIOSK_ON" = 1 ]; then
    install -D -m 0755 "$SRC/deploy/kiosk.sh" "$ROOT$KIOSK"
    install -D -m 0644 "$SRC/deploy/metropolys-kiosk.desktop" "$ROOT$AUTOSTART"
else
    rm -f "$ROOT$KIOSK" "$ROOT$AUTOSTART"
fi

if [ "$HOTSPOT" = 1 ]; then
    step "Wi-Fi hotspot $SSID"
    ROOT=$ROOT NMCLI=$NMCLI "$SRC/deploy/hotspot.sh" --ssid "$SSID"
fi

step "Starting $SERVICE"
"$SYSTEMCTL" daemon-reload
"$SYSTEMCTL" enable "$SERVICE"
"$SYSTEMCTL" restart "$SERVICE"  # on a re-install, this picks up the new code

JOIN=$(sed -n 's/^COMPANION_JOIN_URL=//p' "$ROOT$DEFAULTS" | tail -n 1)
if [ -z "$JOIN" ]; then
    ADDRESS=$("$HOSTNAME_CMD" -I 2>/dev/null | awk '{print $1}' || true)
    [ -n "$ADDRESS" ] && JOIN="http://$ADDRESS:8000/"
fi
echo
if [ -n "$JOIN" ]; then
    echo "Metropolys companion is running. Players join at: $JOIN"
else
    echo "Metropolys companion is running, but this Pi has no network address yet (hostname -I is empty)."
fi
echo "Table view on the Pi: http://127.0.0.1:8000/table   Logs: journalctl -u metropolys-companion -f"
