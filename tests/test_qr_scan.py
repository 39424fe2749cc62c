"""The QR codes scan to the right place: screenshots from real Chromium and the serve log's text QR, read by zbarimg."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import urllib.request
import zlib
from pathlib import Path

import pytest

from conftest import FAST
from pages_helpers import TABLE, browser, devices  # noqa: F401
import sandbox
from server_helpers import COMPANION, ROOT, LiveServer, free_port

# A documentation address (RFC 5737): printed and encoded, never connected to.
DOC_URL = "http://192.0.2.7:8000"
# Every character the WIFI: format reserves, in both fields.
SSID = 'Meeple,Net: "Pi";2'
PASSWORD = 'tea;time:"42"\\,'


# -- reading a QR code the way a phone camera does --

def zbarimg(png: Path) -> subprocess.CompletedProcess:
    """zbarimg on the image, QR codes only; a missing zbarimg fails the test, never skips it."""
    exe = shutil.which("zbarimg")
    if exe is None:
        pytest.fail("zbarimg is missing: the QR scan tests need it (scripts/test installs it with apt-get; "
                    "or run: apt-get install zbar-tools).", pytrace=False)
    return subprocess.run([exe, "--raw", "-q", "-Sdisable", "-Sqrcode.enable", str(png)],
                          capture_output=True, timeout=60)


def zbar(png: Path) -> str:
    """The text of the one QR code in the image, as zbarimg reads it."""
    p = zbarimg(png)
    assert p.returncode == 0, f"zbarimg found no QR code in {png} (exit {p.returncode}): {p.stderr.decode()[:300]}"
    text = p.stdout.decode("utf-8")
    assert text.endswith("\n") and text.count("\n") == 1, f"expected exactly one QR code in {png}, got {text!r}"
    return text[:-1]


def shoot(page, selector: str, path: Path) -> Path:
    """A screenshot of the element once its image has loaded (a lazy one is scrolled to first)."""
    loc = page.locator(selector)
    loc.scroll_into_view_if_needed()
    page.wait_for_function("s => { const i = document.querySelector(s); return i.complete && i.naturalWidth > 0; }",
                           arg=selector)
    loc.screenshot(path=str(path))
    return path


def wifi_fields(text: str) -> dict:
    """Parses WIFI:K:v;K:v;; as a phone does: ';' ends a field unless a backslash escapes it."""
    assert text.startswith("WIFI:") and text.endswith(";;"), text
    fields, key, buf, i, body = {}, None, "", 0, text[len("WIFI:"):-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            buf += body[i + 1]
            i += 2
            continue
        if ch == ":" and key is None:
            key, buf = buf, ""
        elif ch == ";":
            assert key is not None and key not in fields, f"bad field in {text!r}"
            fields[key], key, buf = buf, None, ""
        else:
            buf += ch
        i += 1
    assert key is None and buf == "", f"unterminated field in {text!r}"
    return fields


def png(rows: list[list[bool]], scale: int) -> bytes:
    """An 8-bit greyscale PNG, `scale` pixels per cell, True = white."""
    raw = b"".join(b"\x00" + bytes(255 if on else 0 for on in row for _ in range(scale))
                   for row in rows for _ in range(scale))
    h, w = len(rows) * scale, len(rows[0]) * scale

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# Block characters as a terminal cell draws them: (upper half inked, lower half inked). qrcode prints its
# blank cells as a no-break space (cp437's byte 255); a terminal draws that as an empty cell, like a space.
BLOCKS = {" ": (False, False), "\u00a0": (False, False), "\u2580": (True, False), "\u2584": (False, True),
          "\u2588": (True, True)}


def terminal_image(lines: list[str], margin: int = 4) -> list[list[bool]]:
    """Light ink on a dark terminal (journalctl, ssh): each character is a cell one module wide, two tall."""
    width = max(map(len, lines)) + 2 * margin
    dark = [False] * width
    rows = [dark] * (2 * margin)
    for line in lines:
        cells = [BLOCKS[ch] for ch in line.ljust(width - 2 * margin)]
        for half in (0, 1):
            rows.append([False] * margin + [c[half] for c in cells] + [False] * margin)
    return rows + [dark] * (2 * margin)


# -- a game, its join QR, and the phone that follows it --

def new_lobby(host) -> str:
    """A two-seat game made with the host's cookies; the host takes blue."""
    status, data = host.api("POST", "/api/games", {"mode": "family", "players": ["blue", "red"],
                                                   "removed_districts": ["north", "east"]})
    assert status == 201, data
    gid = data["id"]
    status, data = host.api("POST", f"/api/games/{gid}/seats/blue", {"name": "Ann"})
    assert status == 200, data
    return gid


def join_by_scan(devices, server, url: str, gid: str) -> None:  # noqa: F811
    """A new phone opens the scanned URL, lands on that game's lobby, and picks red."""
    guest = devices(server, name="Bert")
    guest.goto(url)
    assert guest.page.url == url
    assert guest.page.get_attribute("#app", "data-game") == gid
    guest.page.wait_for_selector("#join:not([hidden])")
    assert guest.state()["phase"] == "lobby"
    guest.press("#join-colors button:has(.c-red)")
    guest.page.fill("#join-name", "Bert")
    guest.press("#join button[type=submit]")
    guest.page.wait_for_function("() => document.getElementById('lobby-seats').textContent.includes('Bert')")
    view = guest.view(gid)
    assert view["you"]["color"] == "red"
    assert {p["color"]: p["name"] for p in view["players"]}["red"] == "Bert"


@pytest.mark.parametrize("scale", [1, 0.5], ids=["tv", "half-scale"])
def test_table_join_qr_scans_to_the_current_games_lobby(start_server, browser, devices, tmp_path, scale):  # noqa: F811
    server = start_server()
    host = devices(server, name="Ann")
    gid = new_lobby(host)
    # The table's 1920 x 1080 screen; at half scale the code is drawn in half the pixels (the other tests' shots).
    ctx = browser.new_context(viewport=TABLE, device_scale_factor=scale)
    try:
        page = ctx.new_page()
        page.goto(server.origin + "/table")
        page.wait_for_selector("#join-qr:not([hidden])")
        scanned = zbar(shoot(page, "#join-qr img", tmp_path / "table-join.png"))
        shown = page.inner_text("#join-url").strip()
    finally:
        ctx.close()
    assert scanned == f"{server.origin}/g/{gid}"
    assert shown == scanned, "the URL printed under the code is the one it encodes"
    join_by_scan(devices, server, scanned, gid)


def test_table_follows_a_newer_game_with_its_qr(start_server, devices, tmp_path):  # noqa: F811
    server = start_server()
    host = devices(server, name="Ann")
    first = new_lobby(host)
    table = devices(server, table=True)
    table.goto("/table")
    table.page.wait_for_function("g => document.querySelector('#join-qr img').src.includes(g)", arg=first)
    assert zbar(shoot(table.page, "#join-qr img", tmp_path / "first.png")) == f"{server.origin}/g/{first}"
    second = new_lobby(host)
    # The table polls for the current game every 5 s.
    table.page.wait_for_function("g => document.querySelector('#join-qr img').src.includes(g)", arg=second,
                                 timeout=15000)
    assert zbar(shoot(table.page, "#join-qr img", tmp_path / "second.png")) == f"{server.origin}/g/{second}"


def test_host_lobby_qr_on_the_phone_scans_to_the_same_lobby(start_server, devices, tmp_path):  # noqa: F811
    server = start_server()
    host = devices(server, name="Ann")
    gid = new_lobby(host)
    host.goto(f"/g/{gid}")
    host.page.wait_for_selector("#host-lobby:not([hidden])")
    scanned = zbar(shoot(host.page, "#host-lobby img", tmp_path / "phone-join.png"))
    assert scanned == f"{server.origin}/g/{gid}"
    assert host.text("#join-url").strip() == scanned
    join_by_scan(devices, server, scanned, gid)


def test_table_wifi_qr_gives_back_the_exact_ssid_and_password(start_server, devices, tmp_path):  # noqa: F811
    server = start_server(env=dict(FAST, COMPANION_WIFI_SSID=SSID, COMPANION_WIFI_PASSWORD=PASSWORD))
    table = devices(server, table=True)
    table.goto("/table")
    img = ".qrs figure.qr:not(#join-qr) img"
    assert table.page.locator(img).count() == 1
    # No game yet: the Wi-Fi code stands beside the big "Scan to start a game" code (the one in the column waits under it).
    table.page.wait_for_selector("#nogame:not([hidden])")
    scanned = zbar(shoot(table.page, "#nogame .startqr.wifi img", tmp_path / "wifi.png"))
    assert wifi_fields(scanned) == {"T": "WPA", "S": SSID, "P": PASSWORD}, scanned


def test_table_has_no_wifi_qr_unless_configured(start_server, devices):  # noqa: F811
    server = start_server()
    table = devices(server, table=True)
    table.goto("/table")
    table.page.wait_for_selector("#nogame")     # no game yet: said so, with where to start one
    assert table.page.locator(".qrs img").count() == 1     # the (hidden until a game) join code only


# -- the text QR `companion serve` prints --

@pytest.fixture(scope="module")
def serve_text(tmp_path_factory) -> str:
    """`companion serve --url` on 127.0.0.1 until its announcement and QR are in the log; then killed."""
    tmp = tmp_path_factory.mktemp("serve")
    log = tmp / "serve.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("COMPANION_JOIN_URL", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(COMPANION), "serve", "--host", "127.0.0.1", "--port", str(free_port()),
                                 "--db", str(tmp / "serve.sqlite3"), "--url", DOC_URL],
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                cwd=str(ROOT))
    try:
        deadline = time.monotonic() + 20
        while True:
            text = log.read_bytes().decode("utf-8", "replace")
            # The QR is followed by an empty line: print() adds one after the text's own last newline.
            if "Join at" in text and "\n\n" in text.split("Join at", 1)[1]:
                return text
            assert proc.poll() is None, f"serve exited with {proc.returncode}:\n{text[-3000:]}"
            assert time.monotonic() < deadline, f"no join URL and QR in the log:\n{text[-3000:]}"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def text_qr(log: str) -> list[str]:
    """The block-character lines printed right under the join URL."""
    after = log.split("Join at", 1)[1].split("\n")
    assert after[0].startswith(f" {DOC_URL}/ "), after[0]
    qr = []
    for line in after[1:]:
        if not line or set(line) - set(BLOCKS):
            break
        qr.append(line)
    assert len(qr) > 10 and len({len(line) for line in qr}) == 1, f"no block-character QR under the URL: {after[:3]}"
    return qr


def test_serve_prints_a_terminal_qr_that_scans_to_the_join_url(serve_text, tmp_path):
    path = tmp_path / "terminal.png"
    path.write_bytes(png(terminal_image(text_qr(serve_text)), scale=6))
    assert zbar(path) == f"{DOC_URL}/"


def test_a_damaged_text_qr_does_not_read(serve_text, tmp_path):
    """The scan above can fail: the same text QR with a third of its cells flipped reads as nothing."""
    flip = {" ": "\u2588", "\u00a0": "\u2588", "\u2588": "\u00a0", "\u2580": "\u2584", "\u2584": "\u2580"}
    broken = ["".join(flip[ch] if (i + j) % 3 == 0 else ch for j, ch in enumerate(line))
              for i, line in enumerate(text_qr(serve_text))]
    path = tmp_path / "broken.png"
    path.write_bytes(png(terminal_image(broken), scale=6))
    p = zbarimg(path)
    assert p.returncode != 0 and p.stdout == b""


# -- a server on every address: the join QR names the address a phone can reach --

def default_route_address() -> str | None:
    """This machine's default-route address, as iproute2 (netlink, outside the server) tells it."""
    route = re.findall(r"^default .*?dev (\S+)", subprocess.run(["ip", "-4", "route", "show", "default"],
                                                              capture_output=True, text=True).stdout, re.M)
    if not route:
        return None
    addrs = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", route[0]], capture_output=True, text=True).stdout
    found = re.findall(r"inet (\d+\.\d+\.\d+\.\d+)/", addrs)
    return found[0] if found else None


@pytest.mark.skipif(not sandbox.supported(), reason="the seccomp sandbox knows x86_64 and aarch64 only")
def test_kiosk_and_phone_qr_name_the_address_on_a_server_listening_everywhere(devices, tmp_path):  # noqa: F811
    """As the unit runs it (0.0.0.0, netlink forbidden): the kiosk on 127.0.0.1 shows the default route's address;
    a phone that reached address A gets A."""
    lan = default_route_address()
    if lan is None:
        pytest.skip("this machine has no default route: no LAN address to expect")
    server = LiveServer(tmp_path / "everywhere.sqlite3", env=FAST, host="0.0.0.0",
                        cmd_prefix=(sys.executable, str(ROOT / "tests" / "sandbox.py")))
    server.start()
    try:
        gid = new_lobby(devices(server, name="Ann"))
        on_lan = f"http://{lan}:{server.port}/g/{gid}"
        with urllib.request.urlopen(f"http://{lan}:{server.port}/api/games/current", timeout=10) as r:
            assert json.loads(r.read())["join_url"] == on_lan
        kiosk = devices(server, table=True)
        kiosk.goto("/table")
        kiosk.page.wait_for_selector("#join-qr:not([hidden])")
        assert zbar(shoot(kiosk.page, "#join-qr img", tmp_path / "kiosk.png")) == on_lan
        assert kiosk.text("#join-url").strip() == on_lan
        guest = devices(server, name="Bert")
        guest.page.goto(on_lan)
        guest.page.wait_for_selector("#join:not([hidden])")
        assert guest.page.text_content("#join-url").strip() == on_lan   # the host's lobby QR caption
    finally:
        server.kill()
