#!/usr/bin/env bash
# Makes the Pi a Wi-Fi access point (NetworkManager) so phones can join a game with no home network.
# Keeps the password it generated the first time, so the Wi-Fi QR on the table stays valid.
# Usage: sudo deploy/hotspot.sh [--ssid NAME] [--no-up]
# Honours ROOT= (a prefix for every file written) and NMCLI= (the nmcli command), as install.sh does.
set -euo pipefail

ROOT=${ROOT:-${DESTDIR:-}}
NMCLI=${NMCLI:-nmcli}
CON=metropolys-hotspot
ADDRESS=10.42.0.1
SSID=Metropolys
IFACE=${HOTSPOT_IFACE:-wlan0}
UP=1
DEFAULTS="$ROOT/etc/default/metropolys-companion"

while [ $# -gt 0 ]; do
    case "$1" in
        --ssid) SSID=${2:?--ssid needs a name}; shift 2 ;;
        --no-up) UP=0; shift ;;
        *) echo "hotspot.sh: unknown option $1 (known: --ssid NAME, --no-up)" >&2; exit 2 ;;
    esac
done

setting() {  # the value of KEY in the defaults file, or nothing
    if [ -f "$DEFAULTS" ]; then
        sed -n "s/^$1=//p" "$DEFAULTS" | tail -n 1
    fi
}

set_setting() {  # replace KEY=... (or its commented example) in the defaults file, else append it
    local key=$1 value=$2 tmp
    tmp=$(mktemp)
    if grep -qE "^#?$key=" "$DEFAULTS"; then
        awk -v k="$key" -v v="$value" '
            !done && $0 ~ "^#?" k "=" { print k "=" v; done = 1; next }
            $0 ~ "^" k "=" { next }
            { print }' "$DEFAULTS" > "$tmp"
    else
        cat "$DEFAULTS" > "$tmp"
        printf '%s=%s\n' "$key" "$value" >> "$tmp"
    fi
    cat "$tmp" > "$DEFAULTS"
    rm -f "$tmp"
}

PASSWORD=$(setting COMPANION_WIFI_PASSWORD)
if [ -z "$PASSWORD" ]; then
    # 12 letters and digits, leaving out look-alikes (0/O, 1/l/I) for anyone typing it
    while [ ${#PASSWORD} -lt 12 ]; do
        PASSWORD+=$(head -c 64 /dev/urandom | LC_ALL=C tr -dc 'abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789')
    done
    PASSWORD=${PASSWORD:0:12}
fi

mkdir -p "$(dirname "$DEFAULTS")"
touch "$DEFAULTS"
chmod 600 "$DEFAULTS"
set_setting COMPANION_WIFI_SSID "$SSID"
set_setting COMPANION_WIFI_PASSWORD "$PASSWORD"
set_setting COMPANION_JOIN_URL "http://$ADDRESS:8000/"

SETTINGS=(
    connection.interface-name "$IFACE" connection.autoconnect yes
    802-11-wireless.ssid "$SSID" 802-11-wireless.mode ap 802-11-wireless.band bg
    ipv4.method shared ipv4.addresses "$ADDRESS/24" ipv6.method disabled
    wifi-sec.key-mgmt wpa-psk wifi-sec.proto rsn wifi-sec.psk "$PASSWORD"
)
if "$NMCLI" -g NAME connection show | grep -qx "$CON"; then
    "$NMCLI" connection modify "$CON" "${SETTINGS[@]}"
else
    "$NMCLI" connection add type wifi con-name "$CON" ifname "$IFACE" "${SETTINGS[@]}"
fi
if [ "$UP" = 1 ]; then
    echo "Starting the hotspot: if you are connected to this Pi over Wi-Fi, that connection drops now."
    "$NMCLI" connection up "$CON" || echo "hotspot.sh: the hotspot did not come up; see 'Hotspot' in docs/DEPLOY.md." >&2
fi
echo "Wi-Fi hotspot: $SSID, password $PASSWORD; phones then open http://$ADDRESS:8000/"
