"""A game as its log makes it, beneath everything that reads it.

`Game` (game.py) is the log applied to memory, one handler per event kind, the same on append and on replay; what a
restart voids is its `Session` (session.py). The handlers of the concerns sit beside it: the seats the Pi holds
(seats.py), a board scored by hand (entries.py), the steps to do on the real board (board_steps.py), and how long a
phone has been gone (absences.py). The views (companion/views.py), the table (companion/table/) and the Pi's seat
(companion/pi_seat.py) read and change a game through these; nothing here knows of them.
"""
