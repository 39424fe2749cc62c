"""Runs inside the emulated Raspberry Pi 3 (see tests/pi_vm.py) at boot, as root, with Debian's python3: plays a
game over HTTP against the installed service and tells the host after each move, over the serial port, so that
the host reads the GPIO level register while the LEDs hold still; then checks the unit's hardening against the
real /dev/gpiochip0. Lines for the host start with '@@ '; the host answers 'ok' when it has looked."""
from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import termios
import time
import tty
import urllib.error
import urllib.request

APP = "/opt/metropolys-companion"
SERVICE = "metropolys-companion.service"
ORIGIN = os.environ.get("PI_CHECK_ORIGIN", "http://127.0.0.1:8000")
DRY = "--game-only" in sys.argv  # a try-out on any machine against a server at PI_CHECK_ORIGIN: no systemctl
port = -1  # the serial port to the host, opened by main


def say(text: str) -> None:
    os.write(port, f"\r\n@@ {text}\r\n".encode())


def ask(text: str) -> str:
    """Tell the host and wait for its answer line."""
    say(text)
    got = b""
    while not got.endswith(b"\n"):
        got += os.read(port, 1)
    return got.decode().strip()


def sh(cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)


class Phone:
    """One phone's cookies and JSON requests."""

    def __init__(self):
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body=None) -> dict:
        data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
        req = urllib.request.Request(ORIGIN + path, data=data, method=method,
                                     headers={"Origin": ORIGIN, "Content-Type": "application/json"})
        try:
            with self.opener.open(req, timeout=120) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:300]!r}") from None


def first_answer(timeout: float = 600) -> tuple[float, str]:
    """Seconds since the kernel started until /table answers with its QR code in it; and that page."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(ORIGIN + "/table", timeout=30) as r:
                page = r.read().decode()
            return time.clock_gettime(time.CLOCK_BOOTTIME), page
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("the service did not answer on /table:\n" + sh(f"journalctl -u {SERVICE} -n 30 -o cat").stdout)


def bid(legal: dict, high: bool) -> dict:
    """The highest bid this player can make (a 13 ends the call at once: games end quickly), or the lowest (the
    turn passes to the other seat); a pass when there is none."""
    bids = sorted((v, nb) for nb, values in legal["neighborhoods"].items() for v in values)
    if not bids:
        return {"pass": True}
    value, nb = bids[-1] if high else bids[0]
    return {"bid": nb, "value": value}


WATCHED = 6  # moves after which the host reads the LEDs: every one costs seconds of holding still under emulation


def play() -> None:
    """A two-seat game to its end; the host looks at the LEDs at the start, after the first WATCHED moves (the
    first a low bid, so the turn passes to the other seat; then calls won) and at the end."""
    colours = ["blue", "red"]
    phones = {c: Phone() for c in colours}
    host = phones["blue"]
    gid = host.call("POST", "/api/games", {"mode": "family", "players": colours, "deal": "app", "layout": "random",
                                           "removed_districts": ["north", "east"], "seed": 7})["id"]
    for c in colours:
        phones[c].call("POST", f"/api/games/{gid}/seats/{c}", {"name": c.title()})
    view = host.call("POST", f"/api/games/{gid}/start")
    ask(f"turn {view['seq']} {view['to_act']}")
    moves = 0
    while view["phase"] == "playing":
        colour = view["to_act"]
        mine = phones[colour].call("GET", f"/api/games/{gid}")
        before = sum(p["buildings"] for p in mine["players"])
        view = phones[colour].call("POST", f"/api/games/{gid}/actions", dict(bid(mine["legal"], high=moves > 0),
                                                                             expect_seq=mine["seq"]))
        moves += 1
        built = sum(p["buildings"] for p in view["players"]) > before
        if view["phase"] != "playing" or moves > WATCHED:
            continue
        if built:
            ask(f"call {view['seq']} {view['last_call']['color']} {view['to_act']}")
        else:
            ask(f"turn {view['seq']} {view['to_act']}")
    say(f"moves {moves}")
    ask(f"end {view['seq']} {','.join(view['scores']['winners'])}")


# name: (a line of the unit's [Service] to take out, a line to put in); the wiring check then runs as that unit
POLICIES = {
    "as-written": ("", ""),
    "without-DeviceAllow": ("DeviceAllow=char-gpiochip rw", ""),
    "DeviceAllow-rtc-only": ("DeviceAllow=char-gpiochip rw", "DeviceAllow=char-rtc r"),
    "DevicePolicy-closed": ("DeviceAllow=char-gpiochip rw", "DevicePolicy=closed"),
    "PrivateDevices": ("", "PrivateDevices=yes"),
    "PrivateUsers": ("", "PrivateUsers=yes"),
    "ProcSubset-pid": ("", "ProcSubset=pid"),
}


def policies() -> None:
    """The LED wiring check, run as the service's unit (its [Service] as written, the ExecStart swapped for the
    wiring check), then with one line changed each time: which lines keep the LEDs working on a real GPIO chip."""
    unit = open(f"/etc/systemd/system/{SERVICE}").read()
    wiring = f"ExecStart={APP}/.venv/bin/python -m companion.pi.leds --pins blue=17 --step 0.2"
    for name, (out, line) in POLICIES.items():  # all written, then one reload: each costs seconds under emulation
        text = re.sub(r"^ExecStart=.*$", wiring, unit, flags=re.M)
        text = re.sub(r"^(Type|Restart|RestartSec)=.*\n", "", text, flags=re.M)
        if out:
            assert f"\n{out}\n" in text, f"the unit has no line {out}"
            text = text.replace(f"\n{out}\n", "\n")
        text = text.replace("[Service]\n", f"[Service]\nType=oneshot\n{line}\n")
        text = re.sub(r"\[Install\][\s\S]*", "", text)
        with open(f"/run/systemd/system/leds-{name}.service", "w") as f:
            f.write(text)
    sh("systemctl daemon-reload")
    ok = {name: sh(f"systemctl start leds-{name}.service").returncode == 0 for name in POLICIES}
    # the wiring checks' own lines (written by their processes), not systemd's about the units; one journalctl
    units = " ".join(f"-u leds-{name}.service" for name in POLICIES)
    lines: dict[str, list[str]] = {name: [] for name in POLICIES}
    for entry in sh(f"journalctl {units} -o json --output-fields=_SYSTEMD_UNIT,MESSAGE --no-pager").stdout.splitlines():
        entry = json.loads(entry)
        name = entry.get("_SYSTEMD_UNIT", "").removeprefix("leds-").removesuffix(".service")
        if name in lines and isinstance(entry.get("MESSAGE"), str):
            lines[name].append(entry["MESSAGE"])
    for name in POLICIES:
        log = " | ".join(lines[name][-4:])
        say("policy " + json.dumps({"name": name, "ok": ok[name], "log": log[-400:]}))


def main() -> None:
    global port
    port = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
    tty.setraw(port)
    termios.tcflush(port, termios.TCIFLUSH)
    say(f"booted {time.clock_gettime(time.CLOCK_BOOTTIME):.1f}")
    answered, page = first_answer()
    say("answered " + json.dumps({"boot": answered, "qr": "<svg" in page and "qr" in page.lower()}))
    venv = f"{APP}/.venv/bin/python"
    facts = sh(f"{venv} -c 'import gpiozero, lgpio, importlib.metadata as m; print(m.version(gpiozero.__name__), gpiozero.__file__, lgpio.__file__)'; "
               "ls -l /dev/gpiochip0; tr '\\0' '\\n' < /sys/bus/gpio/devices/gpiochip0/of_node/compatible; "
               "dpkg-query -W -f '${Version}' python3-gpiozero; echo; systemctl --version | head -n 1; "
               f"journalctl -u {SERVICE} -o cat --no-pager | grep -i -e gpio -e led | tail -n 3")
    say("facts " + json.dumps(facts.stdout + facts.stderr))
    play()
    if not DRY:
        sh(f"systemctl stop {SERVICE}")
        ask("stopped")
        policies()
    say("done")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 (the host shows it)
        say("error " + json.dumps(f"{type(e).__name__}: {e}"))
        raise
    finally:
        if not DRY:
            sh("systemctl poweroff")
