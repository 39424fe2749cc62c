#!/usr/bin/env bash
# Opens the table view full screen once the companion server answers; started by the desktop's autostart.
set -u
# localhost, not 127.0.0.1: the server knows the Pi's own screen by a loopback request to "localhost", and lets it act as host.
URL=${COMPANION_TABLE_URL:-http://localhost:8000/table}
WAIT=${COMPANION_KIOSK_WAIT:-90}

# One kiosk per login: labwc's autostart line and the XDG autostart entry may both start this.
# The lock stays held by Chromium (exec below keeps the descriptor) until it closes.
exec 9>"${XDG_RUNTIME_DIR:-/tmp}/metropolys-kiosk-$(id -u).lock"
if ! flock -n 9; then
    echo "metropolys-kiosk: already running." >&2
    exit 0
fi

for _ in $(seq "$WAIT"); do
    curl --silent --fail --output /dev/null "$URL" && break
    sleep 1
done

BROWSER=$(command -v chromium-browser || command -v chromium || true)
if [ -z "$BROWSER" ]; then
    echo "metropolys-kiosk: Chromium is not installed (sudo apt install chromium-browser)." >&2
    exit 1
fi
# --incognito: no "restore pages?" bubble after a power cut; --password-store=basic: no keyring prompt
exec "$BROWSER" --kiosk --incognito --noerrdialogs --disable-infobars --no-first-run \
    --password-store=basic --check-for-update-interval=31536000 \
    --ozone-platform-hint=auto "$URL"
