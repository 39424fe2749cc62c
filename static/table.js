/* The table display: follows the most recent game and shows only what everyone may see. */
"use strict";
(function () {
  var $ = M.$;
  var map = new M.Map($("map"));
  var gameId = null, joinUrl = null, sock = null, view = null, live = false;

  function render() {
    if (!view) return;
    M.mark($("app"), view, live);
    M.status($("status"), view);
    banner(view);
    M.show($("nogame"), false);
    map.paint(view);
    M.show($("layout"), view.phase === "lobby");
    map.list($("layout-list"), view.tokens, view.removed_districts);
    M.callPanel(view);
    G.callOver($("callover"), view, null, null);
    M.show($("callbox"), !view.call_over || view.phase === "finished");
    G.undone($("undone"), view);
    G.logList($("log"), view, 8);
    M.playersPanel($("players"), view);
    M.show($("end"), view.phase === "finished");
    if (view.phase === "finished") {
      M.endPanel($("end-tally"), view, gameId);
      $("end-tally").insertBefore(M.el("h2", "", M.tr("game_over")), $("end-tally").firstChild);
    }
    evening();
    tonight();
    // Always there: a player whose phone lost the page scans it again to get back to their seat.
    M.show($("join-qr"), true);
    // As many log lines as the column has room for: the table display never scrolls.
    var side = document.querySelector(".tinfo"), ol = $("log");
    M.show(ol.parentNode, true);
    while (ol.lastChild && side.scrollHeight > side.clientHeight + 1) ol.removeChild(ol.lastChild);
    M.show(ol.parentNode, !!ol.lastChild);
  }

  /* Between games (lobby or game over), tonight's standings: asked for again when a game ends or a new one opens. */
  var standings = null, askedFor = null;
  function tonight() {
    var between = view.phase !== "playing";
    var box = $("tonight");
    M.show(box, between && standings && standings.all.length > 0);
    // Beside the final tally when a game is over; in the side column in the next game's lobby.
    if (view.phase === "finished" && box.parentNode !== $("end")) $("end").appendChild(box);
    else if (view.phase !== "finished" && box.parentNode === $("end")) { var after = $("players").parentNode; after.parentNode.insertBefore(box, after.nextSibling); }
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
      var row = M.el("tr");
      row.appendChild(M.el("td", "pname", r.name));
      [r.played, r.wins, r.average.toFixed(1), r.best].forEach(function (v) { row.appendChild(M.el("td", "num", v)); });
      body.appendChild(row);
    });
  }

  /* The player to act, in their colour, large enough to read from across the table. */
  function banner(view) {
    var s = $("status");
    if (view.phase === "playing" && view.to_act) {
      var p = (view.players || []).filter(function (q) { return q.color === view.to_act; })[0] || {};
      s.textContent = "";
      var line = M.el("div", "who");
      line.appendChild(M.chip(view.to_act));
      line.appendChild(document.createTextNode(" " + (p.name || M.cap(M.term(view.to_act)))));
      s.appendChild(line);
      s.appendChild(M.el("div", "", M.tr("banner_turn")));
    }
    ["blue", "red", "white", "gray"].forEach(function (c) { s.classList.toggle("c-" + c, view.phase === "playing" && view.to_act === c); });
    s.classList.toggle("turnbanner", view.phase === "playing" && !!view.to_act);
  }

  function take(next) {
    if (!next || !next.phase) return;
    if (view && next.seq < view.seq && next.id === view.id) return;
    view = next;
    if (view.next_game) { follow(view.next_game); poll(); }   // a rematch: the table moves with the phones
    else render();
  }

  /* Who has no live phone, what every screen is told, and the code that confirms a host claim. */
  function evening() {
    var n = view.notice, box = $("notice");
    var recent = !!n && view.seq - n.seq < 6;
    M.show(box, recent);
    if (recent) box.textContent = M.tr(n.key, { color: n.color ? M.cap(M.term(n.color)) : "", game: n.game || "" });
    var ul = $("offline");
    ul.textContent = "";
    (view.players || []).forEach(function (p) {
      if (p.seated && p.online === false && !(p.color === view.host_color && G.hostLoss(view))) ul.appendChild(M.el("li", "", M.tr("phone_offline", { name: p.name || M.cap(M.term(p.color)) })));
      else if (p.seated && p.online === false) G.hostCountdown(ul.appendChild(M.el("li", "hostgone")), view);   // "In 1:40 a player can take over"
    });
    var claim = view.host_claim && view.host_claim_code;
    M.show($("claim-code"), !!claim);
    $("claim-code").textContent = claim ? M.tr("table_claim_code", { color: M.cap(M.term(view.host_claim.color)), code: view.host_claim_code }) : "";
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
    M.show($("conn"), true);
    M.show($("nogame"), false);
    sock = M.live(id, take, function (on) { live = on; M.connBadge(on); $("status").classList.toggle("stale", !on); render(); });
  }

  /* The game the host chose (never simply the one changed last); none after an abandon. */
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
        $("players").textContent = "";
        $("call").textContent = "";
        $("lastcall").textContent = "";
        $("notice").hidden = true;
        $("offline").textContent = "";
        $("log").textContent = "";
        M.show($("callover"), false);
        M.show($("undone"), false);
        noGame(res.data);
      }
    });
    M.api("GET", "/api/table").then(function (res) {
      var code = res.ok && res.data && res.data.code;
      M.show($("display-code"), !!code);
      $("display-code").textContent = code ? M.tr("display_code_is", { code: code }) : "";
    });
  }
  /* Before any game: say so, and where a phone starts one (no endless "Reconnecting"). */
  var gone = null;
  function noGame(now) {
    M.show($("nogame"), true);
    $("nogame").querySelector("h2").textContent = gone ? M.tr("table_abandoned", { game: gone }) : M.tr("no_game_yet");
    var url = (now && now.start_url) || $("app").getAttribute("data-start") || location.origin + "/";
    // No network yet: what the host does, not an address no phone can open (asked again at each poll).
    $("start-here").textContent = now && now.no_network ? M.tr("no_network") : M.tr("start_here", { url: url });
    var c = $("conn");
    if (c) M.show(c, false);
  }

  poll();
  setInterval(poll, 5000);
})();
