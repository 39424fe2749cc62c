#!/usr/bin/env bash
# Makes labwc start the table view at login, with or without Raspberry Pi OS's autostart line.
# labwc runs ONE autostart file: the user's ~/.config/labwc/autostart if there is one, else the
# system's /etc/xdg/labwc/autostart. Raspberry Pi OS's system file runs the XDG autostart entries
# (lxsession-xdg-autostart), which start /etc/xdg/autostart/metropolys-kiosk.desktop; plain labwc,
# or a user's own file, does not. So the kiosk line goes into every autostart file labwc may run
# that lacks that line (the system file is created where there is none); the kiosk starts once
# even when both ways fire (it holds a lock while it runs).
#   bash deploy/kiosk-autostart.sh add|remove      (install.sh runs it; ROOT= prefixes paths for tests)
set -euo pipefail

ROOT=${ROOT:-}
KIOSK=/usr/local/bin/metropolys-kiosk
LINE="$KIOSK &  # metropolys-kiosk (deploy/install.sh)"
SYSTEM="$ROOT/etc/xdg/labwc/autostart"

users_files() {  # the users' own labwc autostart files that exist
    local f
    for f in "$ROOT"/home/*/.config/labwc/autostart "$ROOT"/root/.config/labwc/autostart; do
        [ -f "$f" ] && printf '%s\n' "$f"
    done
    return 0
}

drop_line() {  # the file without our line (keeps owner and mode)
    local tmp
    tmp=$(mktemp)
    grep -vF "# metropolys-kiosk (deploy/install.sh)" "$1" > "$tmp" || true
    cat "$tmp" > "$1"
    rm -f "$tmp"
}

add_line() {  # our line at the end, once; not where XDG autostart entries already start the kiosk
    if grep -q '^[^#]*lxsession-xdg-autostart' "$1"; then
        drop_line "$1"
        return
    fi
    grep -qF "# metropolys-kiosk (deploy/install.sh)" "$1" && return
    [ -s "$1" ] && [ -n "$(tail -c 1 "$1")" ] && echo >> "$1"
    printf '%s\n' "$LINE" >> "$1"
}

case "${1:-}" in
    add)
        if [ ! -f "$SYSTEM" ]; then
            install -D -m 0644 /dev/null "$SYSTEM"
        fi
        add_line "$SYSTEM"
        while read -r f; do add_line "$f"; done < <(users_files)
        ;;
    remove)
        while read -r f; do
            [ -f "$f" ] && drop_line "$f"
        done < <(printf '%s\n' "$SYSTEM"; users_files)
        # a system file this script created and nothing else uses
        if [ -f "$SYSTEM" ] && [ ! -s "$SYSTEM" ]; then
            rm -f "$SYSTEM"
        fi
        ;;
    *) echo "kiosk-autostart.sh: say add or remove" >&2; exit 2 ;;
esac
