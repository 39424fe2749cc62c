#!/usr/bin/env bash
# At boot in fallback mode: gives the Wi-Fi a while to join a network it knows, and raises the hotspot only
# if it has not. NetworkManager alone would raise it at once, before its first scan has seen the home Wi-Fi.
# Installed by `hotspot.sh --fallback` as /usr/local/sbin/metropolys-hotspot-fallback and run once per boot by
# metropolys-hotspot-fallback.service; `hotspot.sh --off` or a plain `hotspot.sh` removes both.
# Honours NMCLI=, WAIT=, SETTLE= and POLL= for tests.
set -u

NMCLI=${NMCLI:-nmcli}
CON=metropolys-hotspot
# A Pi at home is on its Wi-Fi some 10-20 s after NetworkManager starts (the radio's firmware, a scan, the
# WPA handshake, a lease from the home router): 30 s leaves room, and a cabin's table waits no longer.
WAIT=${WAIT:-30}
# A join still under way when that time is up (a slow router's DHCP) may take this much longer to end.
SETTLE=${SETTLE:-30}
# Seconds between looks at the radio's state (each an nmcli run, about a second of CPU in the emulated test VM).
POLL=${POLL:-1}
# A join that fails (the router dropped the Pi while it asked for a lease) leaves NetworkManager waiting for a new
# password it will never get: it does not try that network again by itself. Tried once more, for this long.
RETRY=${RETRY:-45}

log() { echo "metropolys-hotspot-fallback: $*"; }
device_state() {  # NetworkManager's number for the device's state; 0 while there is no such device yet
    local state
    state=$("$NMCLI" -g GENERAL.STATE device show "$IFACE" 2>/dev/null)
    state=${state%% *}
    case "$state" in ''|*[!0-9]*) state=0 ;; esac  # the radio's driver may be late
    echo "$state"
}

IFACE=$("$NMCLI" -g connection.interface-name connection show "$CON" 2>/dev/null) \
    || { log "there is no connection $CON (hotspot.sh --off removes this too); nothing to do."; exit 0; }
IFACE=${IFACE:-wlan0}

state=0
joining=""   # the known network a join was under way to
retried=""   # 1 once that join failed and was tried again
while :; do
    now=$SECONDS  # the clock before the state: a decision rests on a state read no earlier than its time
    state=$(device_state)
    if [ "$state" = 100 ]; then
        log "$IFACE joined \"$("$NMCLI" -g GENERAL.CONNECTION device show "$IFACE")\" after ${SECONDS} s; no hotspot."
        exit 0
    fi
    if [ "$state" -ge 40 ] && [ -z "$joining" ]; then
        joining=$("$NMCLI" -g GENERAL.CONNECTION device show "$IFACE" 2>/dev/null)
    elif [ "$state" = 30 ] && [ -n "$joining" ] && [ -z "$retried" ]; then
        retried=1
        log "joining \"$joining\" failed after ${SECONDS} s; trying it once more."
        if "$NMCLI" --wait "$RETRY" connection up "$joining"; then
            log "$IFACE joined \"$joining\" after ${SECONDS} s; no hotspot."
            exit 0
        fi
        state=$(device_state)
    fi
    [ "$now" -lt "$WAIT" ] && { sleep "$POLL"; continue; }
    # 40-90: preparing, configuring, asking for secrets, getting an address: a join under way
    if [ "$state" -ge 40 ] && [ "$state" -lt 100 ] && [ "$now" -lt $((WAIT + SETTLE)) ]; then
        sleep "$POLL"
        continue
    fi
    break
done

# The radio itself may not be ready yet (its firmware late, a slow boot): an access point needs it available.
while [ "$state" -lt 30 ] && [ "$SECONDS" -lt $((WAIT + SETTLE + 120)) ]; do
    sleep "$POLL"
    state=$(device_state)
done
log "$IFACE joined no known network within ${SECONDS} s (state $state): raising the hotspot."
for try in 1 2 3; do
    "$NMCLI" --wait 60 connection up "$CON" && exit 0
    log "the hotspot did not come up (try $try of 3)"
    sleep 5
done
exit 1
