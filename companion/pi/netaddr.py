"""This machine's IPv4 addresses from /proc and ioctls: the service's sandbox forbids netlink."""
from __future__ import annotations

import fcntl
import ipaddress
import os
import socket
import struct
from typing import Optional
from urllib.parse import urlsplit

SIOCGIFFLAGS, SIOCGIFADDR = 0x8913, 0x8915
IFF_UP = 0x1
NET = "/sys/class/net"
DEVICES = "/proc/net/dev"     # /proc/net follows the process's network namespace; /sys only its mount's
ROUTES = "/proc/net/route"


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def interfaces() -> list[str]:
    """Interface names from /proc/net/dev (socket.if_nameindex() asks netlink)."""
    return sorted(line.split(":", 1)[0].strip() for line in _read(DEVICES).splitlines()[2:] if ":" in line)


def address_of(name: str, sock: Optional[socket.socket] = None) -> Optional[str]:
    """The interface's IPv4 address, or None when it is down or has none."""
    own = sock is None
    s = sock or socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    request = struct.pack("256s", name.encode()[:15])
    try:
        if not struct.unpack_from("H", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, request), 16)[0] & IFF_UP:
            return None
        packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR, request)
    except OSError:
        return None
    finally:
        if own:
            s.close()
    return socket.inet_ntoa(packed[20:24])


def default_route_interfaces() -> list[str]:
    """Interfaces holding an IPv4 default route, lowest metric first: where the kernel sends off-LAN traffic."""
    found = []
    for line in _read(ROUTES).splitlines()[1:]:
        f = line.split()
        if len(f) >= 8 and f[1] == "00000000" and f[7] == "00000000" and int(f[3], 16) & 0x1:
            found.append((int(f[6]), f[0]))
    return [name for _, name in sorted(found)]


def _rank(name: str, routed: list[str]) -> tuple:
    """Default-route interfaces first, then Wi-Fi (the hotspot), then other hardware, then virtual ones (docker0)."""
    if name in routed:
        return (0, routed.index(name))
    wireless = os.path.exists(f"{NET}/{name}/wireless") or os.path.exists(f"{NET}/{name}/phy80211")
    hardware = os.path.exists(f"{NET}/{name}/device")
    return (1 if wireless else 2 if hardware else 3, 0)


def lan_addresses() -> list[str]:
    """Non-loopback IPv4 addresses of the interfaces that are up, the one phones most likely reach first."""
    routed = default_route_interfaces()
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in sorted(interfaces(), key=lambda n: _rank(n, routed)):
            addr = address_of(name, s)
            if addr and not addr.startswith("127.") and addr not in found:
                found.append(addr)
    return found


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_base(host_url: str, configured: Optional[str] = None, listen: Optional[str] = None) -> str:
    """Where phones should go, worked out per request: the setting; else the address this request reached;
    for a loopback request (the kiosk) this machine's LAN address now, if the server listens beyond loopback."""
    if configured:
        return configured.rstrip("/")
    url = urlsplit(host_url)
    base = f"{url.scheme}://{url.netloc}"
    try:
        port = url.port
    except ValueError:  # a Host header no browser sends: answer with it as it came
        return base
    if not is_loopback(url.hostname or "") or (listen is not None and is_loopback(listen)):
        return base
    addrs = lan_addresses()
    if not addrs:
        return base
    return f"{url.scheme}://{addrs[0]}" + (f":{port}" if port else "")


def no_network(host_url: str, configured: Optional[str] = None, listen: Optional[str] = None) -> bool:
    """The kiosk asks and this machine has no address a phone could reach yet (no Wi-Fi, no hotspot):
    the screen tells the host what to do instead of showing a loopback address."""
    if configured or (listen is not None and is_loopback(listen)):
        return False
    return is_loopback(urlsplit(host_url).hostname or "") and not lan_addresses()


def join_url(host_url: str, config, game_id: str) -> str:
    """A game's join URL for the request at hand (config: the app's JOIN_URL and LISTEN settings)."""
    return join_base(host_url, config.get("JOIN_URL"), config.get("LISTEN")) + "/g/" + game_id


def start_url(host_url: str, config) -> str:
    """The front door (the host page, where a phone starts a game), worked out like the join URL."""
    return join_base(host_url, config.get("JOIN_URL"), config.get("LISTEN")) + "/"
