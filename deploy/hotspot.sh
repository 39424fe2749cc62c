#!/usr/bin/env bash
# Makes the Pi a Wi-Fi access point (NetworkManager) so phones can join a game with no home network.
# Checks first that the Wi-Fi can be used, prints the network name, password and a QR code of it
# before anything switches, and never cuts off an SSH session over Wi-Fi without --yes.
# Keeps the password it generated the first time, so the Wi-Fi QR on the table stays valid.
#   sudo bash deploy/hotspot.sh [--ssid NAME] [--fallback] [--yes] [--no-up]
#   sudo bash deploy/hotspot.sh --off [--yes]
#   --fallback  join a known Wi-Fi when this Pi can see one; raise the hotspot only when it cannot
#   --off       remove the hotspot (and the fallback's boot unit); the Wi-Fi joins known networks again
#   --yes       go ahead even though this SSH session runs over the Wi-Fi that becomes (or is) the hotspot
#   --no-up     write the settings and the connection, but do not switch now
# Honours ROOT= (a prefix for the settings file and /sys), NMCLI=, SS= and SYSTEMCTL= for tests.
set -euo pipefail

ROOT=${ROOT:-${DESTDIR:-}}
NMCLI=${NMCLI:-nmcli}
SS=${SS:-ss}
SYSTEMCTL=${SYSTEMCTL:-systemctl}
CON=metropolys-hotspot
ADDRESS=10.42.0.1
SSID=Metropolys
# 2.4 GHz channel 6: one of the three that every region allows (NetworkManager otherwise picked 13
# with the country set to GB, which phones set to a US region never see)
CHANNEL=6
UP=1
YES=0
FALLBACK=0
OFF=0
DEFAULTS="$ROOT/etc/default/metropolys-companion"
VENV_PYTHON=/opt/metropolys-companion/.venv/bin/python
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# fallback mode's boot unit: waits for a known Wi-Fi, then raises the hotspot (see hotspot-fallback.sh)
FALLBACK_UNIT=metropolys-hotspot-fallback.service
FALLBACK_UNIT_FILE="$ROOT/etc/systemd/system/$FALLBACK_UNIT"
FALLBACK_SCRIPT="$ROOT/usr/local/sbin/metropolys-hotspot-fallback"

while [ $# -gt 0 ]; do
    case "$1" in
        --ssid) SSID=${2:?--ssid needs a name}; shift 2 ;;
        --fallback) FALLBACK=1; shift ;;
        --yes) YES=1; shift ;;
        --no-up) UP=0; shift ;;
        --off) OFF=1; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "hotspot.sh: unknown option $1 (known: --ssid NAME, --fallback, --off, --yes, --no-up)" >&2; exit 2 ;;
    esac
done

refuse() { echo "hotspot.sh: $*" >&2; exit 1; }
say() { echo "$@" 2>/dev/null || true; }  # keeps going when the SSH terminal has gone
# An SSH session that arrived over the Wi-Fi ends when the access point takes the interface (or leaves it).
# sudo's clean environment drops SSH_CONNECTION, so the SSH server's own connections are looked at
# too: any established one that ends on an address of the Wi-Fi device counts.
ssh_addresses() {  # the local addresses of the established SSH connections, one a line
    if [ -n "${SSH_CONNECTION:-}" ]; then
        awk '{ print $3 }' <<< "$SSH_CONNECTION"
    fi
    "$SS" -Htnp state established 2>/dev/null \
        | awk '$0 ~ /"sshd/ || $3 ~ /:22$/ { print $3 }' \
        | sed 's/:[0-9]*$//; s/^\[//; s/\]$//; s/%.*//; s/^::ffff://' || true
}
ssh_over() {  # whether an SSH login arrived over the device $1
    local addresses
    addresses=$("$NMCLI" -g IP4.ADDRESS,IP6.ADDRESS device show "$1" 2>/dev/null | tr '|' '\n' \
        | sed 's#/.*##; s/[[:space:]]//g' | grep -v '^$' || true)
    [ -n "$addresses" ] && ssh_addresses | grep -qixF -- "$addresses"
}
LOGIN=${SUDO_USER:-$(id -un 2>/dev/null || echo pi)}  # the name to log in with again, not root's under sudo

install_fallback_unit() {
    install -D -m 0755 "$HERE/hotspot-fallback.sh" "$FALLBACK_SCRIPT"
    install -D -m 0644 "$HERE/$FALLBACK_UNIT" "$FALLBACK_UNIT_FILE"
    "$SYSTEMCTL" daemon-reload
    "$SYSTEMCTL" enable "$FALLBACK_UNIT" 2>/dev/null
}

remove_fallback_unit() {
    [ -e "$FALLBACK_UNIT_FILE" ] || [ -e "$FALLBACK_SCRIPT" ] || return 0
    "$SYSTEMCTL" disable "$FALLBACK_UNIT" 2>/dev/null || true
    rm -f "$FALLBACK_UNIT_FILE" "$FALLBACK_SCRIPT"
    "$SYSTEMCTL" daemon-reload
}

if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ]; then
    refuse "run it as root: sudo bash $0 $*"
fi

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

drop_setting() {  # comment out KEY=... (keeps the file's shape)
    local tmp
    tmp=$(mktemp)
    sed "s/^$1=/#$1=/" "$DEFAULTS" > "$tmp"
    cat "$tmp" > "$DEFAULTS"
    rm -f "$tmp"
}

# 1. Can this machine be an access point at all? Nothing is written before these pass.
command -v "$NMCLI" >/dev/null \
    || refuse "NetworkManager's nmcli is not installed; the hotspot needs NetworkManager (Raspberry Pi OS has it since Bookworm). Nothing was changed."
[ "$("$NMCLI" -t -f RUNNING general 2>/dev/null || true)" = running ] \
    || refuse "NetworkManager is not running (sudo systemctl start NetworkManager); nothing was changed."
if [ "$OFF" = 1 ]; then
    # Off: the connection, the fallback's boot unit and the Wi-Fi settings go; an SSH login over the hotspot
    # itself would drop, so that needs --yes as switching it on does.
    device=$("$NMCLI" -g GENERAL.DEVICES connection show "$CON" 2>/dev/null || true)
    if [ -n "$device" ] && [ "$YES" = 0 ] && ssh_over "$device"; then
        refuse "you are logged in over the hotspot on $device: this SSH session will drop when it goes. Run this again with --yes to go ahead (or use Ethernet, or the Pi's own keyboard). Nothing was changed."
    fi
    remove_fallback_unit
    if "$NMCLI" -g NAME connection show | grep -qx "$CON"; then
        [ -n "$device" ] && trap '' HUP PIPE  # finish the job after the session is gone
        "$NMCLI" connection delete "$CON" >/dev/null
    fi
    if [ -f "$DEFAULTS" ]; then
        [ "$(setting COMPANION_JOIN_URL)" = "http://$ADDRESS:8000/" ] && drop_setting COMPANION_JOIN_URL
        drop_setting COMPANION_WIFI_SSID
        drop_setting COMPANION_WIFI_PASSWORD
    fi
    say "The hotspot is off and removed; the Wi-Fi joins the networks it knows again."
    "$SYSTEMCTL" try-restart metropolys-companion.service 2>/dev/null || true
    exit 0
fi

COUNTRY_HOWTO="set it with: sudo raspi-config nonint do_wifi_country GB (your country's two letters instead of GB; or raspi-config, Localisation Options, WLAN Country), then run this again. Nothing was changed."
blocked=""
for dev in "$ROOT"/sys/class/rfkill/rfkill*; do
    [ "$(cat "$dev/type" 2>/dev/null)" = wlan ] || continue
    [ "$(cat "$dev/soft" 2>/dev/null)" = 1 ] && blocked=soft
    [ "$(cat "$dev/hard" 2>/dev/null)" = 1 ] && blocked=hard
done
[ "$blocked" != hard ] || refuse "the Wi-Fi is switched off by a hardware switch (rfkill: hard blocked); nothing was changed."
if [ "$blocked" = soft ] || [ "$("$NMCLI" radio wifi 2>/dev/null || true)" != enabled ]; then
    refuse "the Wi-Fi is switched off (rfkill), as Raspberry Pi OS keeps it until a Wi-Fi country is set: $COUNTRY_HOWTO"
fi
if command -v raspi-config >/dev/null && [ -z "$ROOT" ] \
   && [ -z "$(raspi-config nonint get_wifi_country 2>/dev/null || true)" ]; then
    refuse "this Pi has no Wi-Fi country yet, and an access point may not transmit without one: $COUNTRY_HOWTO"
fi
IFACE=${HOTSPOT_IFACE:-$("$NMCLI" -t -f DEVICE,TYPE device 2>/dev/null | awk -F: '$2 == "wifi" { print $1; exit }')}
[ -n "$IFACE" ] \
    || refuse "NetworkManager sees no Wi-Fi device here (nmcli device lists none), so this machine cannot be a hotspot; nothing was changed."

# 2. The network name and password, kept in the settings file so a printed QR stays valid.
PASSWORD=$(setting COMPANION_WIFI_PASSWORD)
if [ -z "$PASSWORD" ]; then
    # 12 letters and digits, leaving out look-alikes (0/O, 1/l/I) for anyone typing it
    while [ ${#PASSWORD} -lt 12 ]; do
        PASSWORD+=$(head -c 64 /dev/urandom | LC_ALL=C tr -dc 'abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789')
    done
    PASSWORD=${PASSWORD:0:12}
fi

if [ ! -f "$DEFAULTS" ]; then
    mkdir -p "$(dirname "$DEFAULTS")"
    install -m 0600 /dev/null "$DEFAULTS"
fi
set_setting COMPANION_WIFI_SSID "$SSID"
set_setting COMPANION_WIFI_PASSWORD "$PASSWORD"

# 3. Say it before switching anything: the name, the password, and a QR a phone camera joins with.
say "Wi-Fi hotspot: network \"$SSID\", password $PASSWORD; phones then open http://$ADDRESS:8000/"
qr_python=python3
[ -x "$VENV_PYTHON" ] && qr_python=$VENV_PYTHON
"$qr_python" - "$SSID" "$PASSWORD" <<'EOF' 2>/dev/null || say "(no QR code here: the qrcode module is missing)"
import re, sys
import qrcode
escape = lambda text: re.sub(r'([\\;,:"])', r"\\\1", text)  # what the WIFI: QR format reserves
qr = qrcode.QRCode(border=2)
qr.add_data(f"WIFI:T:WPA;S:{escape(sys.argv[1])};P:{escape(sys.argv[2])};;")
qr.print_ascii(invert=True)
EOF

# 4. An SSH session that arrived over this Wi-Fi ends when the access point takes the interface.
over_wifi=0
ssh_over "$IFACE" && over_wifi=1

# 5. The access point: WPA2 with CCMP only and PMF off (the Pi's brcmfmac chip does no PMF as an
# access point, and some phones then fail to join). In fallback mode below any home Wi-Fi, and never
# raised by NetworkManager itself: it would raise it at boot before a scan has seen the home Wi-Fi. The
# boot unit installed below raises it when no known Wi-Fi has been joined in time.
PRIORITY=10
AUTOCONNECT=yes
if [ "$FALLBACK" = 1 ]; then
    PRIORITY=-10
    AUTOCONNECT=no
fi
SETTINGS=(
    connection.interface-name "$IFACE" connection.autoconnect "$AUTOCONNECT" connection.autoconnect-priority "$PRIORITY"
    802-11-wireless.ssid "$SSID" 802-11-wireless.mode ap 802-11-wireless.band bg 802-11-wireless.channel "$CHANNEL"
    ipv4.method shared ipv4.addresses "$ADDRESS/24" ipv6.method disabled
    802-11-wireless-security.key-mgmt wpa-psk 802-11-wireless-security.proto rsn
    802-11-wireless-security.pairwise ccmp 802-11-wireless-security.group ccmp
    802-11-wireless-security.pmf 1 802-11-wireless-security.psk "$PASSWORD"
)

switch_now=$UP
if [ "$FALLBACK" = 1 ] && [ "$UP" = 1 ]; then
    state=$("$NMCLI" -g GENERAL.STATE device show "$IFACE" 2>/dev/null || true)
    if [ "${state%% *}" = 100 ]; then
        switch_now=0
        say "Fallback mode: $IFACE is connected now, so it stays so; the hotspot comes up by itself when this Pi starts where it sees no Wi-Fi it knows."
    fi
fi
if [ "$switch_now" = 1 ] && [ "$over_wifi" = 1 ] && [ "$YES" = 0 ]; then
    refuse "you are logged in over $IFACE, which becomes the hotspot: this SSH session will drop, and you reach the Pi again only by joining \"$SSID\" (password above) and running: ssh $LOGIN@$ADDRESS. Run this again with --yes to go ahead (or use --fallback, or Ethernet, or the Pi's own keyboard). Nothing was switched."
fi

if "$NMCLI" -g NAME connection show | grep -qx "$CON"; then
    "$NMCLI" connection modify "$CON" "${SETTINGS[@]}"
else
    "$NMCLI" connection add type wifi con-name "$CON" ifname "$IFACE" "${SETTINGS[@]}" >/dev/null
fi

if [ "$FALLBACK" = 1 ]; then
    install_fallback_unit
    # the join address follows whichever network the Pi is on, so none is fixed
    [ "$(setting COMPANION_JOIN_URL)" = "http://$ADDRESS:8000/" ] && drop_setting COMPANION_JOIN_URL
else
    remove_fallback_unit  # the hotspot comes up by itself at every boot now
fi
if [ "$switch_now" = 1 ]; then
    if [ "$over_wifi" = 1 ]; then
        say "Switching $IFACE to the hotspot now: this SSH session drops. Join \"$SSID\" and ssh to $ADDRESS."
        trap '' HUP PIPE  # finish the job after the session is gone
    fi
    if ! "$NMCLI" --wait 30 connection up "$CON"; then
        refuse "the hotspot did not come up (NetworkManager's reason is above; see 'The Wi-Fi hotspot' in docs/DEPLOY.md). No join address was written."
    fi
    [ "$("$NMCLI" -g GENERAL.STATE connection show "$CON" 2>/dev/null || true)" = activated ] \
        || refuse "the hotspot connection did not reach 'activated'; no join address was written."
    if [ "$FALLBACK" = 0 ]; then
        set_setting COMPANION_JOIN_URL "http://$ADDRESS:8000/"
    fi
    say "The hotspot \"$SSID\" is up on $IFACE."
fi
# the server reads the settings when it starts
"$SYSTEMCTL" try-restart metropolys-companion.service 2>/dev/null || true
