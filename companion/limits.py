"""Every abuse limit in one table, so a reviewer sees what a stranger, a mad phone or a slow client can cost.

| limit | value | where it bites | why this value |
|---|---|---|---|
| MAX_CONNECTIONS | 512 | live/httploop.py | HTTP connections held at once; at the cap a stranger's is closed for a new one |
| MAX_HEAD | 16 KiB | live/httploop.py | request line and headers |
| MAX_BODY | 64 KiB | live/httploop.py, Flask's MAX_CONTENT_LENGTH | the largest JSON a page sends is a few hundred bytes |
| REQUEST_DEADLINE | 10 s | live/httploop.py | first byte to last: a slow drip does not beat it |
| IDLE_DEADLINE | 10 s | live/httploop.py | a new connection that says nothing |
| KEEPALIVE | 5 s | live/httploop.py | a kept-alive connection waiting for its next request |
| HTTP_SEND_DEADLINE | 10 s | live/httploop.py | an answer the client does not read |
| PER_ADDRESS_THREADS | 4 | live/httploop.py | a stranger address's requests running at once; the rest wait in the loop |
| RESERVED_THREADS | 4 | live/httploop.py | threads strangers never take: known devices always find one |
| LINGER, MAX_LINGERING | 2 s, 256 | live/httploop.py | closing connections drained before they close |
| HTTP_THREADS | 32 | live/httploop.py, `companion serve --threads` | the app's threads: a bid takes one for a few ms, a WebSocket handshake for one request |
| SOCKETS_PER_DEVICE | 3 | live/hub.py | a phone needs one; a reload or a second tab may briefly hold another |
| SOCKETS_PER_ADDRESS | 8 | live/hub.py | every device behind one address (fresh cookies cost nothing) |
| MAX_MESSAGE | 1 KiB | live/wsloop.py | a phone's socket message (an action and its id) |
| SOCKET_ANSWERS_KEPT, ACTION_ID_LENGTH | 1024, 40 | web/live_acts.py | answers kept for a resend of a socket action; its id's length |
| SOCKET_SEND_DEADLINE | 10 s | live/wsloop.py | a view the phone does not read: the socket is dropped |
| MAX_QUEUED | 256 KiB | live/wsloop.py | bytes queued for one socket before it is dropped |
| PING_INTERVAL | 25 s | live/wsloop.py | no pong by the next ping and the socket is dropped |
| RATE_LIMIT, ACTION_BURST | 10/s, 20 | web/throttle.py (config RATE_LIMIT) | bids, passes, undos, codes per device |
| WRITE_RATE_LIMIT, WRITE_BURST | 2/s, 30 | web/throttle.py (config WRITE_RATE_LIMIT) | games, seats, names, cards, layouts per device |
| WRITES_PER_ADDRESS_FACTOR, WRITE_BURST_PER_ADDRESS | 5x, 150 | web/throttle.py | the same per address, for devices that drop their cookie |
| LOBBY_LIMIT | 5 | table/caps.py (config) | games one device hosts that have not started (twice that per address) |
| STARTED_LIMIT | 2 | table/caps.py (config) | games being played that one device hosts (twice that per address): a table plays a game or two at once, and each game with a Pi seat costs the Pi's thinking |
| CHANGES_PER_GAME | 100 | web/throttle.py | seat claims, renames, releases, cards and setups one device logs in one game |
| BOARD_ENTRIES_PER_GAME | 1000 | web/board.py | buildings, tokens, card holders and secret cards one device enters in one board scored without the app (a whole 4-player board by one host is about 100, corrections included a few more) |
| LAYOUTS_PER_DEVICE, LAYOUTS_IN_ALL | 20, 200 | web/api.py | saved layouts: a host reuses a handful; cookies can be thrown away |
| NAME_LENGTH | 24 | names.py | the forms' maxlength says the same |
| ID_LENGTH | 64 | table/memory.py, web/ | a game code, a device cookie or a player name in a query: longer is nobody's, read no further |
| KEYS_KEPT | 4096 | codes.py, asks.py, web/throttle.py | devices and addresses remembered before the quiet ones are forgotten |
| FREE_TRIES, MAX_WAIT, FORGET | 3, 60 s, 1 h | codes.py | wrong codes: free typos, then a doubling wait per device and address |
| ASKS_PER_SEAT, ASK_WAIT, ASK_MAX_WAIT | 6, 5 s, 10 min | asks.py, table/rescue.py | asks for one gone seat at once (one per device and address); after the Pi's screen cancels an ask, that device and address wait 5 s, then twice as long after each further cancel |

HOST_AWAY (120 s), SEAT_AWAY (10 s) and SEAT_MOVE_WAIT (15 s) are not limits but the table's waits: how long a
host's or a seat's phone must be gone before the table offers its role or seat (SEAT_AWAY for the seat whose turn
it is), and how long every screen announces a seat moving.

The loops' own pace and read sizes are not limits but are named here too (below the table's values):
ACCEPT_BATCH, ACCEPT_PAUSE, LOOP_TICK, STOP_GRACE, HTTP_RECV_BYTES, SOCKET_RECV_BYTES, WAKE_BYTES, LIVE_TICK.

OWN is not a limit but who no limit counts: the Pi's own screen and tools, on loopback.
"""
from __future__ import annotations

# -- the HTTP loop (live/httploop.py) --
MAX_CONNECTIONS = 512
MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024
REQUEST_DEADLINE = 10.0
IDLE_DEADLINE = 10.0
KEEPALIVE = 5.0
HTTP_SEND_DEADLINE = 10.0
PER_ADDRESS_THREADS = 4
RESERVED_THREADS = 4
LINGER = 2.0
MAX_LINGERING = 256
HTTP_THREADS = 32          # the default of `companion serve --threads`
ACCEPT_BATCH = 64          # connections taken per wake-up, so reading is never starved by a flood of them
ACCEPT_PAUSE = 0.1         # s without accepting once the process is out of files (EMFILE): evicted ones free some
LOOP_TICK = 0.25           # s between deadline checks, and the longest the loop sleeps
STOP_GRACE = 3.0           # s for answers being made to be written at SIGTERM
HTTP_RECV_BYTES = 64 * 1024   # read at once from a client: a whole request's head and body at most once
WAKE_BYTES = 4096          # wake-up bytes drained at once (one per answer or view waiting)

# -- live sockets (live/hub.py, live/wsloop.py) --
SOCKETS_PER_DEVICE = 3
SOCKETS_PER_ADDRESS = 8
MAX_MESSAGE = 1024
SOCKET_ANSWERS_KEPT = 1024   # socket actions' answers kept for a resend after a reconnect (a refusal's sentence at most)
ACTION_ID_LENGTH = 40
SOCKET_SEND_DEADLINE = 10.0
MAX_QUEUED = 256 * 1024
PING_INTERVAL = 25.0
LIVE_TICK = 1.0            # s between the live loop's deadline and ping checks
SOCKET_RECV_BYTES = 4096   # read at once from a phone's socket (pings, closes and actions, nothing bigger)

# -- what one device may write (web/throttle.py, web/api.py; the rates are settings in app.DEFAULTS) --
RATE_LIMIT = 10.0
ACTION_BURST = 20
WRITE_RATE_LIMIT = 2.0
WRITE_BURST = 30
WRITES_PER_ADDRESS_FACTOR = 5
WRITE_BURST_PER_ADDRESS = 150
LOBBY_LIMIT = 5
STARTED_LIMIT = 2
CHANGES_PER_GAME = 100
BOARD_ENTRIES_PER_GAME = 1000
LAYOUTS_PER_DEVICE = 20
LAYOUTS_IN_ALL = 200
NAME_LENGTH = 24
ID_LENGTH = 64
KEYS_KEPT = 4096

# -- codes read aloud (codes.py): 6 symbols of 31; at most ~730 guesses per address over a 12-hour night --
FREE_TRIES = 3
MAX_WAIT = 60.0
FORGET = 3600.0

# -- asks for a gone phone's seat (asks.py): each with its own code on the Pi's screen --
ASKS_PER_SEAT = 6
ASK_WAIT = 5.0
ASK_MAX_WAIT = 600.0

# The Pi's own screen (the /table kiosk) and tools run on the Pi itself; no device on the network can send
# from these addresses, so no per-address cap counts them (a proxy in front would change that).
OWN = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})

# -- the table's waits (app.DEFAULTS, settings COMPANION_HOST_AWAY, COMPANION_SEAT_AWAY, COMPANION_SEAT_MOVE_WAIT) --
HOST_AWAY = 120.0
# The seat the game waits for: a new phone may ask for it this soon (the other seats wait HOST_AWAY). With the
# announcement that follows, a lost phone's seat is back in SEAT_AWAY + SEAT_MOVE_WAIT (25 s) plus the time to
# pick the colour and type the table's code: under 45 s (tests/test_lost_phone.py checks the sum).
SEAT_AWAY = 10.0
SEAT_MOVE_WAIT = 15.0
