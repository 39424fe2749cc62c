/* The table display: follows the game on the table and shows only what everyone may see; the board is the screen. */
import { M } from "./app.js";
import { G } from "./glance.js";
import { B } from "./board-steps.js";
import { Review } from "./review.js";
(function () {
  var $ = M.$, el = M.el, tr = M.tr;
  var Replay = null;   /* static/replay.js, imported when first wanted (replayFiles) */
  var map = new M.Map($("map"), { fresh: true });
  var gameId = null, joinUrl = null, sock = null, view = null, live = false, kiosk = false;

  function render() {
    if (!view) return;
    M.mark($("app"), view, live);
    M.status($("status"), view);
    banner(view);
    M.show($("nogame"), false);
    map.paint(view);
    bigPieces();
    M.show($("layout"), view.phase === "lobby");
    map.list($("layout-list"), view.tokens, view.removed_districts);
    callTiles(view);
    M.show($("callbox"), view.phase === "playing" && !G.overCall(view));
    G.callOver($("callover"), view, null, null);
    placeCard(view, docked(view));
    G.undone($("undone"), view);
    G.piMove($("pimove"), view);
    B.render($("board-steps"), view, null);   // the steps no person has confirmed yet, for the whole room
    if ((view.board_pending || []).length) M.show($("pimove"), false);
    if (view.undone && view.undone.board) M.show($("undone"), false);   // the steps say what to put back
    hands($("players"), view);
    M.show($("end"), view.phase === "finished");
    evening();
    tonight();
    if (view.phase === "finished") endShow(view);
    if (Replay) Replay.onTable(view, map);   // the host shows a step of the replay (static/replay.js)
    else if (view.phase === "finished" && typeof view.replay_step === "number") replayFiles();
    // Always there: a player whose phone lost the page scans it again to get back to their seat.
    M.show($("join-qr"), true);
    G.logList($("log"), view, 12);
    Review.onTable(view);   /* the Pi's review when the host asks */
    fit();
  }

  /* The end of the game as a show for the room: the tally a line a second, then the winner, the secret cards as
     large cards, then tonight's standings. The phones show their tally at once and never wait for it; the host's phone
     may skip it (POST /api/games/<id>/show/skip: view.show_skipped), and with reduced motion everything shows at once. */
  var PACE = 1000, still = window.matchMedia ? matchMedia("(prefers-reduced-motion: reduce)") : null;
  var reveal = { game: null, shown: 0, timer: null, lines: [] };
  var ROWS = ["trendy", "subway", "subway_card", "archaeological", "archaeological_card", "area"];
  function endShow(view) {
    var node = $("end-tally"), sc = view.scores, box = $("tonight");
    if (node.contains(box)) $("end").appendChild(box);     // kept while the rest is drawn again
    node.textContent = "";
    $("end").classList.add("show");
    if (!sc) return;
    var colors = (view.players || []).map(function (p) { return p.color; });
    node.appendChild(el("h2", "endtitle", tr("game_over")));
    var left = node.appendChild(el("div", "tallycol")), right = node.appendChild(el("div", "aftercol"));
    var lines = tally(view, colors, left.appendChild(el("table", "scores tv")));
    var win = winnerBox(view, sc.winners || []);
    right.appendChild(win);
    // The secret cards first: the right half is never blank while the tally counts up; the winner after the tally.
    lines.unshift(right.appendChild(secrets(view, colors)));
    lines.splice(lines.length, 0, win);
    if (Replay) left.appendChild(Replay.endExtras(view));   // the chart and the awards, once all is revealed
    right.appendChild(box);
    box.classList.add("line");
    box.setAttribute("data-line", "tonight");
    lines.push(box);
    if (reveal.game !== view.id) {
      clearTimeout(reveal.timer);
      reveal = { game: view.id, shown: 0, timer: null, lines: [] };
    }
    if (view.show_skipped || (still && still.matches)) reveal.shown = lines.length;
    reveal.lines = lines;
    step();
  }
  /* The winner's column, marked in every cell of it. */
  function wonClass(view, c) { return (view.scores.winners || []).indexOf(c) >= 0 ? " wcol" : ""; }
  /* The tally table: a head of the players, a row group per line of the tally, then the totals; its row groups in
     the order they are revealed. */
  function tally(view, colors, tbl) {
    var sc = view.scores, lines = [], head = tbl.appendChild(el("thead")).appendChild(el("tr"));
    head.appendChild(el("th", "rowh"));
    colors.forEach(function (c) {
      var th = el("th", "pcol c-edge-" + c + wonClass(view, c));
      th.appendChild(M.chip(c));
      th.appendChild(el("div", "pn", name(view, c)));
      head.appendChild(th);
    });
    ROWS.concat(view.mode === "expert" ? ["neighborhood", "highest"] : []).forEach(function (key) {
      lines.push(tbl.appendChild(tallyLine(view, colors, key)));
    });
    // The row that decided: the totals, or on a tie on points the buildings (rulebook: "In case of a tie, the tied
    // player with the most buildings constructed wins. If still tied, the players share the victory.")
    ["total", "buildings"].forEach(function (key) {
      var decides = (key === "total") === (view.tiebreak === "points");
      var g = el("tbody", "line"), r = g.appendChild(el("tr", "tot " + key + (decides ? " decider" : "")));
      g.setAttribute("data-line", key);
      r.appendChild(el("th", "rowh", tr("row_" + key)));
      colors.forEach(function (c) {
        var p = sc.players[c] || {};
        r.appendChild(el("td", "num" + (decides && (sc.winners || []).indexOf(c) >= 0 ? " won" : "") + wonClass(view, c),
                         key === "total" ? p.total : p.buildings));
      });
      lines.push(tbl.appendChild(g));
    });
    return lines;
  }
  /* A line of the tally is a row group: its numbers, then what scored on a line of its own under them (each note
     after its player's chip, as large as the room reads: a narrow column would wrap it to 11 px, issue 37). */
  function tallyLine(view, colors, key) {
    var g = el("tbody", "line"), r = g.appendChild(el("tr")), d = el("tr", "detail"), cell = d.appendChild(el("td"));
    g.setAttribute("data-line", key);
    cell.colSpan = colors.length + 1;
    r.appendChild(el("th", "rowh", tr("row_" + key)));
    colors.forEach(function (c) {
      var v = ((view.scores.players[c] || {}).breakdown || {})[key] || 0, note = M.detailNote(view, c, key);
      r.appendChild(el("td", "num" + (v < 0 ? " neg" : "") + wonClass(view, c), (v > 0 ? "+" : "") + v));
      if (!note) return;
      var s = cell.appendChild(el("span", "dn" + wonClass(view, c)));
      s.appendChild(M.chip(c));
      s.appendChild(document.createTextNode(" " + note));
    });
    if (cell.firstChild) g.appendChild(d);
    return g;
  }
  /* The winner: the sentence ("Winner: {players}") in one line of text, its label small and the names as large as
     the room needs; the box edged in the winner's colour. */
  function winnerBox(view, winners) {
    var win = el("div", "line winbox");
    if (winners.length === 1) win.classList.add("c-edge-" + winners[0]);
    win.setAttribute("data-line", "winner");
    var around = tr(winners.length > 1 ? "winners_shared" : "winner", { players: "\u0001" }).split("\u0001");
    var names = win.appendChild(el("p", "winner"));
    names.appendChild(el("span", "wlabel", around[0]));
    winners.forEach(function (c, i) {
      if (i) names.appendChild(el("span", "wcol", ", "));
      names.appendChild(el("span", "wname", name(view, c)));
      if (!M.isPi(view, c)) names.appendChild(el("span", "wcol", " (" + M.cap(M.term(c)) + ")"));   // the Pi's name says it
    });
    if (around[1]) names.appendChild(el("span", "wlabel", around[1]));
    win.appendChild(el("p", "tiebreak", tr("tiebreak_" + (view.tiebreak || "points"))));
    return win;
  }
  /* Shows the lines revealed so far; the next one a second later, until all are shown. */
  function step() {
    var lines = reveal.lines, done = reveal.shown >= lines.length;
    lines.forEach(function (n, i) { n.classList.toggle("on", i < reveal.shown); });
    $("end").setAttribute("data-reveal", done ? "done" : "playing");
    if (done && !Replay) replayFiles();
    if (!done && !reveal.timer) reveal.timer = setTimeout(function () { reveal.timer = null; reveal.shown++; step(); }, PACE);
  }
  /* The replay's chart, awards and steps (static/replay.js), fetched when first wanted: once the tally is revealed,
     or when the host shows a step; the end of every game does not carry them (the page's 60 KB). */
  var replayAsked = false;
  function replayFiles() {
    if (replayAsked) return;
    replayAsked = true;
    var css = el("link");
    css.rel = "stylesheet";
    css.onload = css.onerror = function () {   // laid out with its style from the first paint
      import("./replay.js").then(function (m) { Replay = m.Replay; render(); });
    };
    css.href = $("app").getAttribute("data-replay");
    document.head.appendChild(css);
  }
  /* Each player's secret cards, face up and large: the card, its name, what it scores. */
  function secrets(view, colors) {
    var box = el("div", "line secrets"), rev = view.revealed || {};
    box.setAttribute("data-line", "cards");
    box.appendChild(el("h3", "", tr("revealed")));
    // Two cards each (Expert): a row per player; one card: side by side in two columns from three players.
    var rows = view.mode === "expert", grid = box.appendChild(el("div", "sgrid" + (rows ? " rows" : colors.length > 2 ? " two" : "")));
    if (rows) {   // the cards' kinds once, over their columns: a chip is its card's name, large
      var kinds = grid.appendChild(el("div", "sp skinds")), ks = el("div", "scards");
      kinds.appendChild(el("div", "sphead"));
      ks.appendChild(el("small", "", tr("area_card")));
      ks.appendChild(el("small", "", tr("neighborhood_card")));
      kinds.appendChild(ks);
    }
    colors.forEach(function (c) {
      var cards = rev[c] || {}, p = grid.appendChild(el("div", "sp c-edge-" + c));
      var h = p.appendChild(el("div", "sphead"));
      h.appendChild(M.chip(c));
      h.appendChild(el("span", "pn", name(view, c)));
      var row = p.appendChild(el("div", "scards"));
      // Large chips; what a card scored is the tally's line under its objective's numbers.
      if (cards.area) row.appendChild(card(rows ? "" : tr("area_card"), M.cap(M.term(cards.area)), "a-" + cards.area));
      if (cards.neighborhood) row.appendChild(card("", M.cap(M.term(cards.neighborhood)), "k-" + cards.neighborhood));
    });
    return box;
  }
  function card(kind, title, cls) {
    var d = el("div", "scard " + cls);
    if (kind) d.appendChild(el("small", "", kind));
    d.appendChild(el("b", "", title));
    return d;
  }
  function name(view, c) {
    var p = (view.players || []).filter(function (q) { return q.color === c; })[0];
    return M.nameOf(p) || M.cap(M.term(c));
  }

  /* Nothing scrolls: who acts wraps (a word wider than the column gets soft hyphens), the hands' names shrink to one
     line, the log keeps as many lines as the column has room for. */
  function fit() {
    var who = document.querySelector("#status .who");
    if (who && who.scrollWidth > who.clientWidth + 1) who.firstChild.textContent = breakable(who.firstChild.textContent);
    var names = document.querySelectorAll("#players .nm");
    for (var i = 0; i < names.length; i++) shrink(names[i], 0.6);
    var side = document.querySelector(".side"), ol = $("log");
    M.show(ol.parentNode, true);
    // Never fewer lines than the call has (issue 40): past that the log's type shrinks instead, while it fits.
    var keep = view.phase === "playing" ? (view.call || []).length : 0;
    ol.parentNode.style.fontSize = "";
    while (ol.children.length > keep && side.scrollHeight > side.clientHeight + 1) ol.removeChild(ol.lastChild);
    if (ol.lastChild && side.scrollHeight > side.clientHeight + 1) shrink(ol.parentNode, 0.6, true, side);
    stepsFit(side);
    // A side full of notices (a seat moving, asks) fits first: the call box above still shows the whole call.
    while (ol.lastChild && side.scrollHeight > side.clientHeight + 1) ol.removeChild(ol.lastChild);
    M.show(ol.parentNode, !!ol.lastChild);
    notesFit(side);
    if (view.phase === "lobby" && side.scrollHeight > side.clientHeight + 1) M.show($("layout"), false);
    if ($("callover").classList.contains("docked")) shrink($("callover"), 0.6, true, side);
    else shrink($("callover"), 0.5, true);
    if (view.phase === "finished") fitEnd();
  }
  /* A long list of steps (an undo's moves) grows smaller, to 55 % at most, until it and the call under it show whole
     (the call box says every bid of the call: the log under the hands may give way to it meanwhile). */
  function stepsFit(side) {
    var node = $("board-steps"), call = $("callbox");
    if (node.hidden) return;
    node.style.fontSize = "";
    var last = call.hidden ? node : call, size = parseFloat(getComputedStyle(node).fontSize), floor = size * 0.55;
    function cut() { return last.getBoundingClientRect().bottom > side.getBoundingClientRect().bottom + 1; }
    while (cut() && size > floor) { size *= 0.92; node.style.fontSize = size + "px"; }
  }
  /* A lost phone's notices (offline seats, the host claim's and the seat asks' codes) take the room they need; when
     the column is full the join codes and the ask's repeated title give way while a phone is gone, then the notices
     grow smaller together, to 60 % at most:
     every player's hand stays whole in the column; every code keeps the size of the others (all in em of the notices). */
  function notesFit(side) {
    var f = 1, over = function () { return side.scrollHeight > side.clientHeight + 1; };
    side.style.setProperty("--nf", "1");
    side.classList.remove("tight");
    if (over() && $("offline").firstChild) side.classList.add("tight");   // the join codes give way to a lost phone's
    while (over() && f > 0.5) { f *= 0.95; side.style.setProperty("--nf", String(f)); }
  }
  /* The end fits the screen: names and card titles shrink to keep whole words, then type (what scored and the cards'
     kinds keep their floor: table.css). */
  function fitEnd() {
    var all = document.querySelectorAll("#end .pn, #end th.rowh, #end .scard b, #end .wname");
    for (var i = 0; i < all.length; i++) shrink(all[i], 0.5);
    var right = document.querySelector("#end .aftercol"), left = document.querySelector("#end .tallycol");
    if (!right) return;
    shrink(right.querySelector(".secrets"), 0.75, true, right);
    shrink($("tonight"), 0.7, true, right);
    // The chart and the awards take what the tally leaves; when the tally's type would go below 80 % for them, the
    // chart alone: beside, under tonight's standings, when they leave 15 vh; else under the tally, smaller (table.css).
    var extra = left.querySelector(".endextra"), last = right.lastElementChild;
    left.classList.remove("tight");
    shrink(left, 0.8, true);
    if (extra && left.scrollHeight > left.clientHeight + 1) {
      left.classList.add("tight");
      if (right.getBoundingClientRect().bottom - last.getBoundingClientRect().bottom > 0.15 * innerHeight) right.appendChild(extra);
    }
    shrink(left, 0.6, true);    // from 3 vh: the totals stay at least 2.25 x 3 x .6 = 4 vh: 43 px at 1080p, 29 px at 720p
    all = document.querySelectorAll("#end .sphead .pn");   // again in their smaller boxes: one size for all
    for (i = 0; i < all.length; i++) shrink(all[i], 0.5);
    all = document.querySelectorAll("#end .scard b, #end .skinds small");
    for (i = 0; i < all.length; i++) wordFit(all[i], 0.02 * innerHeight);
    stripe(left.querySelector(".scores"));
    winnerGivesWay(right);
  }
  /* A tie's longer sentence under the winner (tie on points: most buildings wins) can still leave the right column
     too little once everything else is at its floor (the cards' words broken last): the winner's name, the largest
     type on the screen, gives way. */
  function winnerGivesWay(right) {
    var names = right.querySelectorAll(".wname"), over = function () { return right.scrollHeight > right.clientHeight + 1; };
    for (var k = 0; k < names.length && over(); k++) shrink(names[k], 0.5, true, right);
  }
  /* A card's name or kind: whole words, smaller, but never under `px` (2 vh: 21.6 px at 1080p); a word still too wide
     there (German: "Umgebungszielkarte") breaks between syllables, with a hyphen. */
  function wordFit(node, px) {
    shrink(node, 0.5);
    if (parseFloat(node.style.fontSize) < px) {
      node.style.fontSize = px + "px";
      node.textContent = breakable(node.textContent);
    }
  }
  /* The winner's column goes on through the lines of what scored, which span the table: a band behind them. */
  function stripe(tbl) {
    var x = tbl.getBoundingClientRect().left, bands = [], heads = tbl.querySelectorAll("thead th.wcol");
    for (var i = 0; i < heads.length; i++) {
      var r = heads[i].getBoundingClientRect(), a = (r.left - x) + "px", b = (r.right - x) + "px";
      bands.push("transparent " + a, "#fff3b0 " + a, "#fff3b0 " + b, "transparent " + b);
    }
    tbl.style.setProperty("--wband", bands.length ? "linear-gradient(to right," + bands.join(",") + ")" : "none");
  }
  /* Smaller type, a step at a time, until the text fits its box (sideways, or also downwards); at most down to `least`. */
  function shrink(node, least, tall, within) {
    if (!node || node.hidden) return;
    node.style.fontSize = "";
    var size = parseFloat(getComputedStyle(node).fontSize), floor = size * least, box = within || node;
    function over() { return box.scrollWidth > box.clientWidth + 1 || (tall && box.scrollHeight > box.clientHeight + 1); }
    while (over() && size > floor) { size *= 0.92; node.style.fontSize = size + "px"; }
  }

  /* Piece numbers read from a chair: 20 px at 1080p, 14 px at 720p (in between in proportion, below in proportion
     to the height). A piece whose number would be drawn smaller (the smallest neighborhoods' slots) grows about its
     centre; the map's own drawing (static/map.js, shared with the phones) stays as it is. */
  function bigPieces() {
    var svg = $("map"), m = svg.getScreenCTM(), h = window.innerHeight;
    if (!m || !m.a) return;
    var least = h >= 1080 ? 20 : h >= 720 ? 14 + (h - 720) / 60 : 14 * h / 720;
    var pieces = svg.querySelectorAll(".piece.built, .piece.bid");
    for (var i = 0; i < pieces.length; i++) {
      var g = pieces[i], t = g.querySelector(".pv, .bv"), tf = g.getAttribute("transform") || "";
      var k = parseFloat((tf.match(/scale\(([\d.]+)\)/) || [])[1]), units = t ? parseFloat(getComputedStyle(t).fontSize) : 0;
      var need = units ? 1.05 * least / (units * m.a) : 0;     // 5% to spare: rounding never puts one under
      if (k && need > k) g.setAttribute("transform", tf.replace(/scale\([\d.]+\)/, "scale(" + need.toFixed(3) + ")"));
    }
  }
  /* Soft hyphens (shown as a hyphen where a line breaks) between syllables, roughly: before a consonant that comes
     before a vowel, never in a word's first or last two letters. Used only when a word is wider than its column. */
  var VOWELS = "aeiouyäöüéèêëàâîïôûœæ";
  function breakable(text) {
    return text.replace(/[^\s-]{6,}/g, function (w) {
      var out = w.charAt(0) + w.charAt(1), low = w.toLowerCase();
      for (var i = 2; i < w.length; i++) {
        if (i <= w.length - 2 && VOWELS.indexOf(low.charAt(i)) < 0 && VOWELS.indexOf(low.charAt(i + 1)) >= 0) out += "\u00ad";
        out += w.charAt(i);
      }
      return out;
    });
  }

  /* About 10 s after a call ends its card leaves the map for the side column: the whole board shows for the next bid. */
  var DOCK_MS = 10000, ended = { key: null, since: 0, timer: null };
  function docked(view) {
    var over = G.overCall(view), key = over ? view.id + ":" + G.callKey(over) : null;
    if (key !== ended.key) {
      clearTimeout(ended.timer);
      ended = { key: key, since: Date.now(), timer: key ? setTimeout(render, DOCK_MS) : null };
    }
    return !!key && Date.now() - ended.since >= DOCK_MS;
  }

  /* The call-over card goes over the half of the map away from the new building, which stays in sight; docked, it
     takes the call's place in the side column. */
  function placeCard(view, dock) {
    var c = G.overCall(view), card = $("callover"), board = document.querySelector(".tscreen .board");
    var home = dock ? $("callbox").parentNode : board;
    if (card.parentNode !== home) {
      if (dock) home.insertBefore(card, $("callbox"));
      else board.appendChild(card);
    }
    card.classList.toggle("docked", !!dock);
    if (!c || card.hidden || dock) { card.style.width = ""; return; }
    var slot = $("map").querySelector('.slot[data-nb="' + c.neighborhood + '"]'), w = $("map").viewBox.baseVal.width;
    var x = slot ? +slot.getAttribute("data-px") : 0, half = slot ? +slot.getAttribute("data-ps") / 2 : 0;
    var right = x < w / 2;
    card.classList.add(right ? "at-right" : "at-left");
    // As wide as it may be without covering the building: a building near the middle narrows it.
    var room = (right ? w - x - half : x - half) / w - 0.045;
    card.style.width = Math.min(52, room * 100) + "%";
  }

  /* The bids of the call as tiles in their colours, the last one ringed (the map shows where). */
  function callTiles(view) {
    var ul = $("call");
    ul.textContent = "";
    var call = view.call || [];
    call.forEach(function (b, i) {
      var li = el("li", "c-" + b.color + (i === call.length - 1 ? " last" : ""));
      li.appendChild(el("span", "cl", M.letter(b.color)));
      li.appendChild(el("span", "cv", b.value));
      li.appendChild(el("span", "cn", b.neighborhood));
      ul.appendChild(li);
    });
    if (!call.length) ul.appendChild(el("li", "hint", tr("no_bids")));
  }

  /* Each player: colour, name, the values still in hand as tiles, built, tokens, cards; dimmed after a pass (the call's tiles say the bids). */
  function hands(node, view) {
    node.textContent = "";
    (view.players || []).forEach(function (p) {
      var passed = view.phase === "playing" && (view.passed || []).indexOf(p.color) >= 0;
      var box = el("div", "hand c-edge-" + p.color + (p.color === view.to_act && view.phase === "playing" ? " acting" : "") + (passed ? " passed" : ""));
      box.setAttribute("data-color", p.color);
      var head = el("div", "hhead");
      head.appendChild(M.chip(p.color));
      head.appendChild(el("span", "nm", M.nameOf(p) || M.cap(M.term(p.color))));
      box.appendChild(head);
      var vals = el("div", "hvals");
      vals.setAttribute("aria-label", tr("in_hand"));
      (p.values || []).forEach(function (v) { vals.appendChild(el("span", "v", v)); });
      box.appendChild(vals);
      var meta = el("div", "hmeta");
      meta.appendChild(el("span", "hb", tr("built_count") + " " + (p.buildings || 0)));
      var t = p.tokens || {};
      ["trendy", "subway", "archaeological"].forEach(function (k) {
        if (!t[k]) return;
        var span = el("span", "tk"), icon = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        icon.setAttribute("class", "ti");
        icon.setAttribute("viewBox", "0 0 20 20");
        var u = document.createElementNS("http://www.w3.org/2000/svg", "use");
        u.setAttribute("href", "#t-" + k);
        icon.appendChild(u);
        span.appendChild(icon);
        span.appendChild(document.createTextNode(String(t[k])));
        meta.appendChild(span);
      });
      if (view.phase === "lobby" && !p.seated) meta.appendChild(el("span", "free", tr("seat_free")));
      if (p.color === view.host_color) meta.appendChild(el("span", "tag", tr("host_mark")));
      if (p.seated && p.online === false) meta.appendChild(el("span", "tag off", tr("offline_mark")));
      if (view.subway_card === p.color) meta.appendChild(el("span", "tag", tr("card_subway")));
      if (view.archaeological_card === p.color) meta.appendChild(el("span", "tag", tr("card_archaeological")));
      box.appendChild(meta);
      node.appendChild(box);
    });
  }

  /* Between games (lobby or game over), tonight's standings: asked for again when a game ends or a new one opens. */
  var standings = null, askedFor = null;
  function tonight() {
    var between = view.phase !== "playing";
    var box = $("tonight");
    M.show(box, between && standings && standings.all.length > 0);
    // Beside the final tally when a game is over; in the side column in the next game's lobby.
    if (view.phase === "finished" && !$("end").contains(box)) $("end").appendChild(box);
    else if (view.phase !== "finished" && $("end").contains(box)) { box.classList.remove("line"); var after = $("players").parentNode; after.parentNode.insertBefore(box, after.nextSibling); }
    if (!between) return;
    var key = view.id + ":" + view.phase;
    if (askedFor !== key) {
      askedFor = key;
      M.api("GET", "/api/standings?tonight=1").then(function (res) {
        if (res.ok && res.data) { standings = res.data; render(); }
      });
    }
    if (!standings) return;
    var body = $("tonight-rows");
    body.textContent = "";
    standings.all.forEach(function (r) {
      var row = el("tr");
      row.appendChild(el("td", "pname", M.nameOf(r)));
      [r.played, r.wins, r.average.toFixed(1), r.best].forEach(function (v) { row.appendChild(el("td", "num", v)); });
      body.appendChild(row);
    });
  }

  /* The player to act, in their colour, large enough to read from across the table. */
  function banner(view) {
    var s = $("status");
    if (view.phase === "playing" && view.to_act) {
      var p = (view.players || []).filter(function (q) { return q.color === view.to_act; })[0] || {};
      s.textContent = "";
      // The name on its own lines, as wide as the column; the colour's chip with "to act" under it.
      var line = el("div", "who");
      line.appendChild(el("span", "nm", M.nameOf(p) || M.cap(M.term(view.to_act))));
      s.appendChild(line);
      var turn = el("div", "turn");
      turn.appendChild(M.chip(view.to_act));
      turn.appendChild(document.createTextNode(" " + tr("banner_turn")));
      s.appendChild(turn);
    }
    ["blue", "red", "white", "gray"].forEach(function (c) { s.classList.toggle("c-" + c, view.phase === "playing" && view.to_act === c); });
    s.classList.toggle("turnbanner", view.phase === "playing" && !!view.to_act);
  }

  function take(next, fresh) {
    if (!next || !next.phase) return;
    if (!fresh && view && next.seq < view.seq && next.id === view.id) return;   // fresh: a new socket's first view
    view = next;
    if (view.next_game) { follow(view.next_game); poll(); }   // a rematch: the table moves with the phones
    else render();
  }

  /* Who has no live phone, what every screen is told, and the code that confirms a host claim. */
  function evening() {
    var n = view.notice, box = $("notice");
    var recent = !!n && view.seq - n.seq < 6;
    M.show(box, recent);
    if (recent) box.textContent = M.sayOf(view, n.key, n.color, { other: n.other ? M.who(view, n.other) : "", game: n.game || "" });
    var ul = $("offline");
    ul.textContent = "";
    (view.players || []).forEach(function (p) {
      var host = p.color === view.host_color && G.hostLoss(view);
      // A seat counted down until a new phone may ask for it (the host's own seat only when its wait is shorter).
      var seat = G.seatLeft(view, p.color) >= 0 && (!host || p.color === view.to_act);
      if (p.seated && p.online === false && seat) G.seatCountdown(ul.appendChild(el("li", "seatgone")), view, p.color);
      else if (p.seated && p.online === false && !host) ul.appendChild(el("li", "", tr("phone_offline", { name: M.who(view, p.color) })));
      if (p.seated && p.online === false && host) G.hostCountdown(ul.appendChild(el("li", "hostgone")), view);   // "In 1:40 a player can take over"
    });
    // A seat moving with the table's confirmation: the code (on the Pi's own screen only), then the notice.
    var m = view.seat_move, asks = view.seat_move_codes || [];
    M.show($("seat-move"), !!m);
    if (m) {
      $("seat-move-text").textContent = M.sayOf(view, m.stage === "moving" ? "seat_move_title" : "seat_move_asked", m.color);
      $("seat-move-ask").textContent = asks.length ? M.sayOf(view, "seat_move_code", m.color) : "";
      seatAsks(view, asks);
      M.show($("seat-move-cancel"), !!kiosk && m.stage === "moving");
    }
    // Every claim for the host role, each with its own code (on the Pi's own screen only).
    var claims = view.host_claim_codes || {}, box = $("claim-code");
    box.textContent = "";
    Object.keys(claims).forEach(function (c) {   // the code as large as a seat's (a phone types it from a chair)
      var line = box.appendChild(el("p", "", M.sayOf(view, "table_claim_code", c, { code: "" }).trim() + " "));
      line.appendChild(el("span", "code big", claims[c]));
    });
    M.show(box, Object.keys(claims).length > 0);
  }

  /* Each phone asking for a gone seat: its number (its own screen shows it too), its code, when it last sat at
     this table, and a button that turns it down (that phone then waits before it may ask again). */
  function seatAsks(view, asks) {
    var ul = $("seat-asks");
    ul.textContent = "";
    asks.forEach(function (a) {
      var li = el("li", "ask");
      li.appendChild(el("span", "", M.sayOf(view, "seat_ask_line", a.color, { ask: a.ask, code: "" })));
      li.appendChild(el("span", "code big", a.code));
      li.appendChild(el("span", "when", a.played ? tr("seat_ask_played", { date: new Date(a.played * 1000).toLocaleDateString(M.S.lang) }) : tr("seat_ask_new")));
      var no = el("button", "btn", tr("seat_ask_cancel"));
      no.type = "button";
      no.onclick = function () {
        M.api("POST", "/api/games/" + encodeURIComponent(view.id) + "/seats/" + a.color + "/rescue/cancel", { ask: a.ask });
      };
      li.appendChild(no);
      ul.appendChild(li);
    });
  }

  // The server works the join URL out at each poll: a Pi that gets its address late shows the right code.
  function showJoin(id, url) {
    if (id === gameId && url === joinUrl) return;
    joinUrl = url;
    $("join-url").textContent = url || "";
    $("join-qr").querySelector("img").src = "/qr/join/" + encodeURIComponent(id) + ".svg?for=" + encodeURIComponent(url || "");
  }

  function follow(id, url) {
    if (!id) return;
    showJoin(id, url);
    if (id === gameId) return;
    gone = null;
    if (sock) sock.stop();
    gameId = id;
    view = null;
    map.seen = null;     // another game's pieces are not news
    M.show($("conn"), true);
    M.show($("nogame"), false);
    sock = M.live(id, take, function (on) { live = on; M.connBadge(on); $("status").classList.toggle("stale", !on); render(); });
  }

  /* The game the host chose (never simply the one changed last); none before the first game or after an abandon. */
  function poll() {
    M.api("GET", "/api/games/current").then(function (res) {
      if (res.ok && res.data && res.data.id) follow(res.data.id, res.data.join_url);
      else if (res.ok) {
        if (view && view.phase === "abandoned") gone = view.id;   // said as such, not "No game yet"
        if (sock) { sock.stop(); sock = null; }
        gameId = null;
        view = null;
        M.show($("join-qr"), false);
        M.show($("end"), false);
        $("status").className = "status big";
        $("status").textContent = "";
        $("app").setAttribute("data-phase", "none");
        map.paint({});
        ["players", "call", "offline", "log"].forEach(function (id) { $(id).textContent = ""; });
        $("notice").hidden = true;
        M.show($("callover"), false);
        M.show($("undone"), false);
        M.show($("pimove"), false);
        noGame(res.data);
      }
    });
    M.api("GET", "/api/table").then(function (res) {
      kiosk = !!(res.ok && res.data && res.data.kiosk);
      M.show($("display-ask"), kiosk && !$("display-code").textContent);
    });
  }
  /* The code that makes another device a display: only when someone asks for it here, on the Pi's screen. */
  $("display-ask").onclick = function () {
    M.api("POST", "/api/table/code", {}).then(function (res) {
      var code = res.ok && res.data && res.data.code;
      M.show($("display-code"), !!code);
      M.show($("display-ask"), !code);
      $("display-code").textContent = code ? M.tr("display_code_is", { code: "" }).trim() + " " : "";
      if (code) $("display-code").appendChild(el("span", "code big", code));
      if (code) setTimeout(function () { $("display-code").textContent = ""; M.show($("display-code"), false); M.show($("display-ask"), kiosk); }, 120000);
    });
  };
  $("seat-move-cancel").onclick = function () {
    if (!view || !view.seat_move) return;
    M.api("POST", "/api/games/" + encodeURIComponent(view.id) + "/seats/" + view.seat_move.color + "/rescue/cancel", {});
  };
  /* Before any game: the front door as a big code to scan from across the table, its address in large type under it. */
  var startShown = null, gone = null;
  function noGame(now) {
    var url = (now && now.start_url) || $("app").getAttribute("data-start") || location.origin + "/";
    M.show($("nogame"), true);
    // After an abandon, said as such (not "No game yet"); with no network yet, what the host does instead of a
    // code for an address no phone can open (asked again at each poll).
    var offline = !!(now && now.no_network);
    $("nogame").querySelector("h2").textContent = (gone ? tr("table_abandoned", { game: gone }) + " " : "") +
      (offline ? (gone ? "" : tr("no_game_yet")) : tr("scan_to_start"));
    M.show($("start-qr").parentNode, !offline);
    if (offline) { startShown = null; $("start-url").textContent = tr("no_network"); }
    else if (url !== startShown) {
      startShown = url;
      $("start-url").textContent = url;
      $("start-qr").src = "/qr/start.svg?for=" + encodeURIComponent(url);
    }
    var c = $("conn");
    if (c) M.show(c, false);
  }

  window.addEventListener("resize", render);
  poll();
  setInterval(poll, 5000);
})();
