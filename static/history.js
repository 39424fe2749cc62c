/* The history page: ended games newest first (filtered by a name), their tallies, and the standings. */
import { M } from "./app.js";
(function () {
  var $ = M.$, el = M.el, tr = M.tr;
  var PAGE = 50;
  var shown = 0, player = "", standings = null, mode = "all";

  function when(e) {
    var d = new Date(e.started_at * 1000);
    try { return d.toLocaleString(M.S.lang, { dateStyle: "medium", timeStyle: "short" }); }
    catch (err) { return e.date; }
  }

  function gameItem(e) {
    var li = el("li", "game" + (e.status === "abandoned" ? " abandoned" : ""));
    li.setAttribute("data-game", e.id);
    var head = el("div", "ghead");
    head.appendChild(el("span", "", when(e)));
    head.appendChild(el("span", "", M.term(e.mode)));
    if (e.status === "abandoned") head.appendChild(el("span", "badge", tr("status_abandoned")));
    if (e.from_board) head.appendChild(el("span", "badge", tr("from_board")));
    if (!e.from_board) head.appendChild(el("span", "meta", tr("minutes", { n: e.duration_min }) + " · " + tr("calls_n", { n: e.calls })));
    li.appendChild(head);
    var seats = el("div", "gseats");
    var over = e.status === "finished";   // an abandoned game: seat order and the points so far, no ranks
    (over ? e.players.slice().sort(function (a, b) { return a.rank - b.rank; }) : e.players).forEach(function (p) {
      var line = el("div", "seatline" + (p.winner ? " won" : ""));
      line.appendChild(el("span", "rk", over ? p.rank + "." : ""));
      line.appendChild(M.chip(p.color));
      line.appendChild(el("span", "nm", M.nameOf(p) + (p.winner ? " ★" : "")));
      if (over) line.appendChild(el("span", "pts", p.score));   // an abandoned game's points so far say nothing
      seats.appendChild(line);
    });
    li.appendChild(seats);
    if (e.status === "finished") {
      var names = e.players.filter(function (p) { return p.winner; }).map(M.nameOf).join(", ");
      li.appendChild(el("p", "hint", tr(e.winners.length > 1 ? "winners_shared" : "winner", { players: names }) + " · " +
        tr("tiebreak_" + (e.tiebreak || "points"))));
    }
    var tools = el("div", "gtools");
    if (e.status === "finished") {   // an abandoned game has no final tally
      var open = el("button", "btn small", tr("open_tally"));
      open.type = "button";
      open.addEventListener("click", function () { tally(e.id); });
      tools.appendChild(open);
    }
    if (!e.from_board) {   // scored from the board: no bids, no record
      var rec = el("a", "btn small", tr("record_json"));
      rec.href = "/api/games/" + encodeURIComponent(e.id) + "/record";
      rec.setAttribute("download", "metropolys-" + e.id + ".json");
      tools.appendChild(rec);
    }
    if (e.status === "finished" && !e.from_board) {   // static/replay.js: the game again, step by step
      var watch = el("a", "btn small", tr("replay_watch"));
      watch.href = "/g/" + encodeURIComponent(e.id) + "/replay";
      tools.appendChild(watch);
    }
    li.appendChild(tools);
    return li;
  }

  function load(more) {
    if (!more) { shown = 0; $("games").textContent = ""; }
    var q = "?offset=" + shown + "&limit=" + PAGE + (player ? "&player=" + encodeURIComponent(player) : "");
    M.api("GET", "/api/history" + q).then(function (res) {
      if (!res.ok) { $("count").textContent = M.errorOf(res); return; }
      res.data.games.forEach(function (e) { $("games").appendChild(gameItem(e)); });
      shown += res.data.games.length;
      $("count").textContent = res.data.total ? tr("games_found", { n: res.data.total }) : tr("no_history");
      M.show($("more"), shown < res.data.total);
      M.show($("clear"), !!player);
    });
  }

  /* The final tally: the very panel the end screen shows, from the game's own view. */
  function tally(id) {
    M.api("GET", "/api/games/" + encodeURIComponent(id)).then(function (res) {
      if (!res.ok) { $("count").textContent = M.errorOf(res); return; }
      M.endPanel($("tally-body"), res.data, id);
      M.show($("tally"), true);
      $("tally").querySelector(".sheet").scrollTop = 0;
      $("tally-title").focus();
    });
  }

  function pct(x) { return Math.round(x * 100) + "%"; }
  function signed(x) { return (+x > 0 ? "+" : "") + x; }

  function renderStandings() {
    var box = $("standings");
    box.textContent = "";
    var rows = (standings || {})[mode] || [];
    if (!rows.length) { box.appendChild(el("p", "hint", tr("no_history"))); return; }
    var tbl = el("table", "standings");
    var head = el("tr");
    ["st_player", "st_played", "st_wins", "st_rate", "st_avg", "st_best", "st_margin"].forEach(function (k, i) {
      var th = el("th", i ? "num" : "");
      th.appendChild(el("span", "long", tr(k)));
      var short = el("abbr", "short", tr(k + "_short"));
      short.title = tr(k);
      th.appendChild(short);
      head.appendChild(th);
    });
    tbl.appendChild(head);
    rows.forEach(function (r) {
      var tr_ = el("tr");
      tr_.setAttribute("data-key", r.key);
      var nm = el("td", "nm", M.nameOf(r));
      var other = r.pi ? [] : r.spellings.filter(function (s) { return s !== r.name; });   // the Pi: its one name
      if (other.length) nm.appendChild(el("span", "sp", "= " + other.join(", ")));
      tr_.appendChild(nm);
      [r.played, r.wins, pct(r.win_rate), r.average.toFixed(1), r.best, signed(r.average_margin.toFixed(1))].forEach(function (v) {
        tr_.appendChild(el("td", "num", v));
      });
      tbl.appendChild(tr_);
    });
    box.appendChild(tbl);
  }

  function loadStandings() {
    M.api("GET", "/api/standings").then(function (res) {
      if (res.ok) { standings = res.data; renderStandings(); }
    });
  }

  $("modes").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-mode]");
    if (!b) return;
    mode = b.getAttribute("data-mode");
    var all = $("modes").querySelectorAll("[data-mode]");
    for (var i = 0; i < all.length; i++) all[i].classList.toggle("on", all[i] === b);
    renderStandings();
  });
  $("filter").addEventListener("submit", function (ev) {
    ev.preventDefault();
    player = $("player").value.trim();
    load(false);
  });
  $("clear").addEventListener("click", function () { $("player").value = ""; player = ""; load(false); });
  $("more").addEventListener("click", function () { load(true); });
  $("close-tally").addEventListener("click", function () { M.show($("tally"), false); });
  $("merge").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var a = $("merge-alias").value.trim(), b = $("merge-into").value.trim();
    M.api("POST", "/api/names/merge", { alias: a, into: b }).then(function (res) {
      var msg = $("merge-msg");
      msg.className = "msg" + (res.ok ? " good" : "");
      msg.textContent = res.ok ? tr("merged_ok", { a: a, b: b }) : M.errorOf(res);
      if (res.ok) { standings = res.data.standings; renderStandings(); load(false); }
    });
  });

  var q = new URLSearchParams(location.search).get("player");
  if (q) { player = q; $("player").value = q; }
  load(false);
  loadStandings();
})();
