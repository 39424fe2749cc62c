"""Game nights remembered: one summary per ended game, so old games are read from SQLite, never replayed at start.

A summary is written in the same transaction as the event that ends its game (or backfilled once for
a database from before summaries) and holds only what the end screen shows everyone: names, colours,
scores, winners. The secret cards stay in the log; `views.py` decides who sees them.
"""
from __future__ import annotations

import csv
import io
import json
import time
import unicodedata
from collections import defaultdict
from datetime import datetime, timezone
from typing import Optional
from urllib.parse import quote

from companion.game.rules import new_game
from companion.game.scoring import explain
from companion.game.state import State
from companion.store import events
from companion.store.db import Also, Store

ENDED = ("finished", "abandoned")   # the phases a game never leaves (abandon: the evening's own event)
TONIGHT = 12 * 3600                 # "tonight" on the table display: games ended in the last 12 hours
BGG_ID = 25568
SOURCE = "Metropolys table companion"


def fold(name: str) -> str:
    """A name as standings count it: case, accents and extra spaces do not matter ('José ' is 'jose')."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def summarize(gid: str, state: Optional[State], status: str, names: dict, mode: str = "family",
              colors: tuple = (), ex: Optional[dict] = None) -> dict:
    """What the history and standings need of an ended game, from its last state (None: abandoned in the lobby);
    `ex`: `explain(state)` when the caller has it already."""
    if state is None:
        # Never started: kept only so the next start need not replay it; the history does not list it.
        seats = [{"color": c, "name": (names.get(c) or c).strip(), "score": 0, "buildings": 0, "rank": 0,
                  "winner": False, "start": False} for c in colors]
        return {"game": gid, "status": status, "mode": mode, "players": seats, "winners": [], "tiebreak": None,
                "calls": 0, "started": False}
    ex = ex or explain(state)
    players = ex["scores"]["players"]
    finished = status == "finished"
    winners = list(ex["scores"]["winners"]) if finished else []
    order = sorted(state.setup.colors, key=lambda c: (-players[c]["total"], -players[c]["buildings"]))
    rank = {}
    for i, c in enumerate(order):
        prev = order[i - 1] if i else None
        same = prev is not None and (players[c]["total"], players[c]["buildings"]) == (
            players[prev]["total"], players[prev]["buildings"])
        rank[c] = rank[prev] if same else i + 1
    opener = new_game(state.setup).to_act_color   # the seat that opens the first call for proposal
    seats = []
    for seat in state.setup.seats:
        c = seat.color
        seats.append({"color": c, "name": (names.get(c) or seat.name or c).strip(),
                      "score": players[c]["total"], "buildings": players[c]["buildings"],
                      "rank": 1 if c in winners else rank[c], "winner": c in winners, "start": c == opener})
    return {"game": gid, "status": status, "mode": state.setup.mode, "players": seats, "winners": winners,
            "tiebreak": ex["tiebreak"] if finished else None, "calls": len(state.built), "started": True}


def record_play(summary: dict, seq: int) -> Also:
    """Writes the summary inside the transaction of event `seq` (the one that ended the game)."""
    def write(conn, at: float) -> None:
        gid = summary["game"]
        conn.execute(
            "INSERT OR REPLACE INTO plays (game, seq, status, mode, created_at, started_at, ended_at, summary) "
            "VALUES (?, ?, ?, ?, "
            "coalesce((SELECT at FROM events WHERE game = ? AND seq = 1), ?), "
            "(SELECT at FROM events WHERE game = ? AND " + events.sql_in("clocks_play") + " ORDER BY seq DESC LIMIT 1), "
            "coalesce((SELECT at FROM events WHERE game = ? AND seq = ?), ?), ?)",
            (gid, seq, summary["status"], summary["mode"], gid, at, gid, gid, seq, at,
             json.dumps(summary, separators=(",", ":"))))
        conn.execute("DELETE FROM play_players WHERE game = ?", (gid,))
        if not summary.get("started", True):
            return
        conn.executemany(
            "INSERT INTO play_players (game, seat, color, name, key, score, rank, winner, pi) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(gid, i, p["color"], p["name"], fold(p["name"]), p["score"], p["rank"], int(p["winner"]), p.get("pi"))
             for i, p in enumerate(summary["players"])])
    return write


def forget_play(gid: str) -> Also:
    """The game ended no longer (an undo of its last action): its summary row goes with the same event."""
    def forget(conn, at: float) -> None:
        conn.execute("DELETE FROM play_players WHERE game = ?", (gid,))
        conn.execute("DELETE FROM plays WHERE game = ?", (gid,))
    return forget


# -- names: merges are appended, never rewritten --

def merges(store: Store) -> dict[str, str]:
    """Folded name -> the folded name it is counted as (the newest merge row of each name wins)."""
    direct: dict[str, str] = {}
    for alias, into in store.read("SELECT alias, into_ FROM name_merges ORDER BY id"):
        direct[alias] = into
    resolved = {}
    for alias in direct:
        seen, key = {alias}, direct[alias]
        while key in direct and direct[key] != key and key not in seen:
            seen.add(key)
            key = direct[key]
        if key != alias:
            resolved[alias] = key
    return resolved


def merge_names(store: Store, alias: str, into: str, device: Optional[str]) -> tuple[str, str]:
    """Count `alias` as `into` from now on (merging a name into itself undoes an earlier merge)."""
    a, b = fold(alias), fold(into)
    if not a or not b:
        raise ValueError("empty name")
    if a != b and merges(store).get(b, b) == a:
        raise ValueError("loop")
    store.write(lambda conn, at: conn.execute(
        "INSERT INTO name_merges (alias, into_, device, at) VALUES (?, ?, ?, ?)", (a, b, device, at)))
    return a, b


# -- reading --

def _entry(row) -> dict:
    gid, status, mode, created, started, ended, summary = row
    s = json.loads(summary)
    begun = started if started is not None else created
    return {"id": gid, "status": status, "mode": mode, "started_at": begun, "ended_at": ended,
            "date": _utc(begun), "duration_min": max(0, round((ended - begun) / 60)),
            "players": s["players"], "winners": s["winners"], "tiebreak": s["tiebreak"], "calls": s["calls"],
            "from_board": s.get("from_board", False)}


_COLS = "game, status, mode, created_at, started_at, ended_at, summary"


def _keys_for(store: Store, name: str) -> list[str]:
    """Every folded spelling counted as this name."""
    merged = merges(store)
    target = merged.get(fold(name), fold(name))
    keys = {k for (k,) in store.read("SELECT DISTINCT key FROM play_players")}
    return sorted({target} | {k for k in keys | set(merged) if merged.get(k, k) == target})


def _with_pi(store: Store, entries: list[dict]) -> list[dict]:
    """Each seat the Pi played marked with its level, as play_players keeps it (summaries written before the
    mark existed have none): by what the seat was, never by its name."""
    if entries:
        ids = json.dumps([e["id"] for e in entries])
        seats = {(g, c): lv for g, c, lv in store.read(
            "SELECT game, color, pi FROM play_players WHERE pi IS NOT NULL AND game IN "
            "(SELECT value FROM json_each(?))", (ids,))}
        for e in entries:
            for p in e["players"]:
                p.pop("pi", None)
                if (e["id"], p["color"]) in seats:
                    p["pi"] = seats[(e["id"], p["color"])]
    return entries


def history(store: Store, player: Optional[str] = None, offset: int = 0, limit: int = 100) -> dict:
    """Ended games, newest first; `player` keeps the games of that name (any merged spelling)."""
    where, params = "WHERE started_at IS NOT NULL", ()
    if player and fold(player):
        keys = _keys_for(store, player)
        marks = ",".join("?" * len(keys))
        where += f" AND game IN (SELECT game FROM play_players WHERE key IN ({marks}))"
        params = tuple(keys)
    total = store.read(f"SELECT count(*) FROM plays {where}", params)[0][0]
    rows = store.read(f"SELECT {_COLS} FROM plays {where} ORDER BY ended_at DESC, game DESC LIMIT ? OFFSET ?",
                      params + (limit, offset))
    return {"total": total, "offset": offset, "games": _with_pi(store, [_entry(r) for r in rows])}


def play(store: Store, gid: str) -> Optional[dict]:
    rows = store.read(f"SELECT {_COLS} FROM plays WHERE game = ?", (gid,))
    return _with_pi(store, [_entry(rows[0])])[0] if rows else None


def standings(store: Store, since: Optional[float] = None) -> dict:
    """Per player (merged spellings together): played, wins, win rate, average and best score, average margin; per mode.

    Finished games only: an abandoned game has no winner and no final score. The margin of a player
    in a game is their score minus the best score among the others (negative when behind).
    """
    merged = merges(store)
    where, params = ("AND p.ended_at >= ?", (since,)) if since is not None else ("", ())
    rows = store.read(
        "SELECT p.game, p.mode, p.ended_at, x.name, x.key, x.score, x.winner, x.pi, x.color FROM plays p "
        f"JOIN play_players x ON x.game = p.game WHERE p.status = 'finished' {where} "
        "ORDER BY p.ended_at, p.game, x.seat", params)
    games: dict[str, list] = defaultdict(list)
    for r in rows:
        games[r[0]].append(r)
    tables: dict[str, dict] = {"all": {}, "family": {}, "expert": {}}
    for seats in games.values():
        for i, (gid, mode, ended, name, key, score, winner, pi, color) in enumerate(seats):
            best_other = max((s[5] for j, s in enumerate(seats) if j != i), default=score)
            # never the same row, whatever the name; a seat the Pi played: one row per level and colour, as BG Stats
            # counts it ("Pi Red (strong)", its one name)
            who = ("pi", f"pi:{pi}:{color}") if pi else ("person", merged.get(key, key))
            for table in (tables["all"], tables[mode]):
                row = table.setdefault(who, {"key": who[1], "names": {}, "played": 0, "wins": 0, "points": 0,
                                             "best": None, "margin": 0, "pi": pi, "color": color})
                row["names"][name] = ended     # the newest spelling shown; the target's own spelling first
                row["played"] += 1
                row["wins"] += winner
                row["points"] += score
                row["best"] = score if row["best"] is None else max(row["best"], score)
                row["margin"] += score - best_other
    out = {}
    for mode, table in tables.items():
        lines = []
        for row in table.values():
            own = [n for n in row["names"] if fold(n) == row["key"]] or list(row["names"])
            name = max(own, key=lambda n: row["names"][n])
            n = row["played"]
            line = {"name": name, "key": row["key"], "spellings": sorted(row["names"]), "played": n,
                    "wins": row["wins"], "win_rate": round(row["wins"] / n, 4),
                    "average": round(row["points"] / n, 2), "best": row["best"],
                    "average_margin": round(row["margin"] / n, 2)}
            if row["pi"]:
                line["pi"], line["color"] = row["pi"], row["color"]
            lines.append(line)
        lines.sort(key=lambda r: (-r["wins"], -r["win_rate"], -r["average"], r["key"], "pi" in r))
        out[mode] = lines
    return out


def tonight(store: Store) -> dict:
    return standings(store, since=time.time() - TONIGHT)


# -- out of the Pi: BG Stats and spreadsheets --

def _utc(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


_TIEBREAK = {"points": "most points", "buildings": "tie on points, most buildings",
             "shared": "tie on points and buildings, shared victory"}


def comment(entry: dict) -> str:
    """One line for the play's comments: who won and how the tie was broken."""
    if entry["status"] != "finished":
        return "Abandoned before the end"
    names = [p["name"] for p in entry["players"] if p["winner"]]
    line = f"Winner{'s' if len(names) > 1 else ''}: {' and '.join(names)} ({_TIEBREAK[entry['tiebreak']]})"
    hints = [f"{p['name']}: {p['hints']} hint{'s' if p['hints'] > 1 else ''}" for p in entry["players"] if p.get("hints")]
    return line + ("; scored from the board" if entry.get("from_board") else "") + "".join("; " + h for h in hints)


def _player_id(seat: dict, merged: dict) -> str:
    """BG Stats' id of a player: a person's name as standings count it; a seat the Pi played, its level and colour
    (one id per seat, so three Pi seats are three players and none is a person who took the Pi's name)."""
    if seat.get("pi"):
        return f"pi:{seat['pi']}:{seat['color']}"
    return merged.get(fold(seat["name"]), fold(seat["name"]))


def bgstats(store: Store, gid: str, named=lambda seat: seat) -> Optional[dict]:
    """The play as BG Stats' 'push plays from other apps' link takes it, and the two links; `named`: each seat under
    the name it goes by (the Pi's: views.pi_named)."""
    entry = play(store, gid)
    if entry is None or entry["status"] != "finished":
        return None
    entry["players"] = [named(p) for p in entry["players"]]
    merged = merges(store)
    data = {
        "sourceName": SOURCE,
        "sourcePlayId": gid,
        "playDate": entry["date"],
        "durationMin": 0 if entry.get("from_board") else entry["duration_min"],   # played off the app: unknown
        "board": entry["mode"].title(),
        "comments": comment(entry),
        "game": {"name": "Metropolys", "bggId": BGG_ID, "highestWins": True, "noPoints": False,
                 "sourceGameId": "metropolys"},
        "players": [{"name": p["name"], "sourcePlayerId": _player_id(p, merged),
                     "score": p["score"], "rank": p["rank"], "winner": p["winner"], "startPlayer": p["start"]}
                    for p in entry["players"]],
    }
    q = quote(json.dumps(data, separators=(",", ":"), ensure_ascii=False), safe="")
    return {"data": data, "app": f"bgstats://app.bgstatsapp.com/createPlay.html?data={q}",
            "web": f"https://app.bgstatsapp.com/createPlay.html?data={q}"}


CSV_FIELDS = ("game", "date_utc", "status", "mode", "duration_min", "calls", "seat", "color", "name",
              "counted_as", "score", "buildings", "rank", "winner", "start_player", "tiebreak")


def csv_text(store: Store) -> str:
    """The whole history for spreadsheets: one row per player per game, oldest game first."""
    merged = merges(store)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(CSV_FIELDS)
    for row in store.read(f"SELECT {_COLS} FROM plays WHERE started_at IS NOT NULL ORDER BY ended_at, game"):
        e = _entry(row)
        for i, p in enumerate(e["players"], 1):
            w.writerow([e["id"], e["date"], e["status"], e["mode"], e["duration_min"], e["calls"], i, p["color"],
                        p["name"], merged.get(fold(p["name"]), fold(p["name"])), p["score"], p["buildings"],
                        p["rank"], int(p["winner"]), int(p["start"]), e["tiebreak"] or ""])
    return out.getvalue()
