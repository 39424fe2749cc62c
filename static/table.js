/* The table display: follows the game on the table and shows only what everyone may see; the board is the screen. */
"use strict";
(function () {
  var $ = M.$, el = M.el, tr = M.tr;
  var map = new M.Map($("map"), { fresh: true });
  var gameId = null, joinUrl = null, sock = null, view = null, live = false, kiosk = false;

  function render() {
    if (!view) return;
    M.mark($("app"), view, live);
    M.status($("status"), view);
    banner(view);
    M.show($("nogame"), false);
    map.paint(view);
    M.show($("layout"), view.phase === "lobby");
    map.list($("layout-list"), view.tokens, view.removed_districts);
    callTiles(view);
    M.show($("callbox"), view.phase === "playing" && !G.overCall(view));
    G.callOver($("callover"), view, null, null);
    placeCard(view);
    G.undone($("undone"), view);
    G.piMove($("pimove"), view);
    hands($("players"), view);
    M.show($("end"), view.phase === "finished");
    if (view.phase === "finished") {
      M.endPanel($("end-tally"), view, gameId);
      $("end-tally").insertBefore(el("h2", "", tr("game_over")), $("end-tally").firstChild);
    }
    evening();
    tonight();
    // Always there: a player whose phone lost the page scans it again to get back to their seat.
    M.show($("join-qr"), true);
    G.logList($("log"), view, 12);
    fit();
  }

  /* Nothing scrolls: long names shrink to one line, the log keeps as many lines as the column has room for. */
  function fit() {
    var who = document.querySelector("#status .who");
    if (who) shrink(who, 0.4);
    var names = document.querySelectorAll("#players .nm");
    for (var i = 0; i < names.length; i++) shrink(names[i], 0.6);
    var side = document.querySelector(".side"), ol = $("log");
    M.show(ol.parentNode, true);
    while (ol.lastChild && side.scrollHeight > side.clientHeight + 1) ol.removeChild(ol.lastChild);
    M.show(ol.parentNode, !!ol.lastChild);
    if (view.phase === "lobby" && side.scrollHeight > side.clientHeight + 1) M.show($("layout"), false);
    shrink($("callover"), 0.5, true);
  }
  /* Smaller type, a step at a time, until the text fits its box (sideways, or also downwards); at most down to `least`. */
  function shrink(node, least, tall) {
    if (!node || node.hidden) return;
    node.style.fontSize = "";
    var size = parseFloat(getComputedStyle(node).fontSize), floor = size * least;
    function over() { return node.scrollWidth > node.clientWidth + 1 || (tall && node.scrollHeight > node.clientHeight + 1); }
    while (over() && size > floor) { size *= 0.92; node.style.fontSize = size + "px"; }
  }

  /* The call-over card goes over the half of the map away from the new building, which stays in sight. */
  function placeCard(view) {
    var c = G.overCall(view), card = $("callover");
    if (!c || card.hidden) return;
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
      var row = el("tr");
      row.appendChild(el("td", "pname", r.name));
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
      var line = el("div", "who");
      line.appendChild(M.chip(view.to_act));
      line.appendChild(el("span", "", M.nameOf(p) || M.cap(M.term(view.to_act))));
      s.appendChild(line);
      s.appendChild(el("div", "", tr("banner_turn")));
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
    if (recent) box.textContent = tr(n.key, { color: n.color ? M.cap(M.term(n.color)) : "", other: n.other ? M.cap(M.term(n.other)) : "", game: n.game || "" });
    var ul = $("offline");
    ul.textContent = "";
    (view.players || []).forEach(function (p) {
      if (p.seated && p.online === false && !(p.color === view.host_color && G.hostLoss(view))) ul.appendChild(el("li", "", tr("phone_offline", { name: p.name || M.cap(M.term(p.color)) })));
      else if (p.seated && p.online === false) G.hostCountdown(ul.appendChild(el("li", "hostgone")), view);   // "In 1:40 a player can take over"
    });
    // A seat moving with the table's confirmation: the code (on the Pi's own screen only), then the notice.
    var m = view.seat_move, sm = view.seat_move_code;
    M.show($("seat-move"), !!m);
    if (m) {
      var who = M.cap(M.term(m.color));
      $("seat-move-text").textContent = m.stage === "moving" ? M.tr("seat_move_title", { color: who }) :
        M.tr("seat_move_asked", { color: who });
      M.show($("seat-move-code"), !!sm && m.stage === "code");
      $("seat-move-ask").textContent = sm && m.stage === "code" ? M.tr("seat_move_code", { color: who }) : "";
      $("seat-move-code").textContent = sm ? sm.code : "";
      M.show($("seat-move-cancel"), !!kiosk);
    }
    var claim = view.host_claim && view.host_claim_code;
    M.show($("claim-code"), !!claim);
    $("claim-code").textContent = claim ? tr("table_claim_code", { color: M.cap(M.term(view.host_claim.color)), code: view.host_claim_code }) : "";
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
      $("display-code").textContent = code ? M.tr("display_code_is", { code: code }) : "";
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

  poll();
  setInterval(poll, 5000);
})();
