/* Shared by every page: strings, the JSON API, the SVG map, the live socket, players and the end-of-game tally. */
import { BoardMap } from "./map.js";
var M = (function () {
  var S = JSON.parse(document.getElementById("strings").textContent);

  function fill(text, params) {
    // French elides "de" before a name that starts with a vowel: "la place d’Ann (Rouge)" (i18n.py says the same).
    if (S.lang === "fr") text = text.replace(/\bde \{(\w+)\}/g, function (m, k) {
      return params && /^[aeiouyàâäéèêëîïôöùûü]/i.test(String(params[k] || "")) ? "d’{" + k + "}" : m;
    });
    return text.replace(/\{(\w+)\}/g, function (m, k) {
      return params && params[k] !== undefined ? params[k] : m;
    });
  }
  // Gettext's Plural-Forms expression (C syntax over n), read by a small parser: the CSP allows no eval.
  function pluralIndex(expr, n) {
    var toks = expr.match(/\d+|n|[!=<>]=|&&|\|\||[-+*\/%<>!?:()]/g) || [], at = 0;
    function peek() { return toks[at]; }
    function next() { return toks[at++]; }
    function primary() {
      var tok = next();
      if (tok === "(") { var v = ternary(); next(); return v; }
      if (tok === "!") return primary() ? 0 : 1;
      if (tok === "-") return -primary();
      return tok === "n" ? n : parseInt(tok, 10);
    }
    var levels = [["*", "/", "%"], ["+", "-"], ["<", ">", "<=", ">="], ["==", "!="], ["&&"], ["||"]];
    var ops = {
      "*": function (a, b) { return a * b; }, "/": function (a, b) { return Math.trunc(a / b); },
      "%": function (a, b) { return a % b; }, "+": function (a, b) { return a + b; },
      "-": function (a, b) { return a - b; }, "<": function (a, b) { return +(a < b); },
      ">": function (a, b) { return +(a > b); }, "<=": function (a, b) { return +(a <= b); },
      ">=": function (a, b) { return +(a >= b); }, "==": function (a, b) { return +(a === b); },
      "!=": function (a, b) { return +(a !== b); }, "&&": function (a, b) { return +(a && b); },
      "||": function (a, b) { return +(a || b); }
    };
    function binary(level) {
      var v = level < 0 ? primary() : binary(level - 1);
      while (level >= 0 && levels[level].indexOf(peek()) >= 0) { var op = next(); v = ops[op](v, binary(level - 1)); }
      return v;
    }
    function ternary() {
      var c = binary(levels.length - 1);
      if (peek() !== "?") return c;
      next(); var a = ternary(); next(); var b = ternary();
      return c ? a : b;
    }
    return +ternary();
  }
  function tr(key, params) {
    var text = S.ui[key] || key;
    if (Array.isArray(text)) {
      var count = params ? params[(S.counts || {})[key] || "n"] : undefined;
      var i = pluralIndex(S.plural || "(n != 1)", typeof count === "number" ? count : 2);
      text = text[Math.min(Math.max(i, 0), text.length - 1)];
    }
    return fill(text, params);
  }
  function term(w) { return S.terms[w] || w; }
  function cap(s) { s = String(s); return s.charAt(0).toUpperCase() + s.slice(1); }
  function letter(color) { return S.ui["letter_" + color] || color.charAt(0).toUpperCase(); }
  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function chip(color) { return el("span", "chip c-" + color, letter(color)); }
  function who(view, color) {
    var p = (view.players || []).filter(function (q) { return q.color === color; })[0];
    var name = cap(term(color));
    if (p && p.pi) return nameOf(p);   // "Pi Blue (strong)": its one name already says its colour
    return p && p.name ? p.name + " (" + name + ")" : name;
  }
  /* A sentence about a seat (key's {player}): on that seat's own phone its "you" form (key + "_you": "Your seat is
     moving"), elsewhere the seat as who() names it ("Ann (Red)"); the server's refusals say the same. */
  function sayOf(view, key, color, params) {
    var p = {}, mine = !!view.you && view.you.color === color && S.ui[key + "_you"] !== undefined;
    for (var k in params || {}) p[k] = params[k];
    p.player = who(view, color);
    // each sentence starts with a capital, whatever case a name was typed in ("béa (Red) bid 3" -> "Béa (Red) bid 3")
    return tr(mine ? key + "_you" : key, p).replace(/(^|[.!?]\s+)(\p{Ll})/gu, function (m, a, b) { return a + b.toUpperCase(); });
  }
  /* A seat's name as this page says it: a Pi seat's one name in the page's language ("Pi Red (strong)", "Pi Rot
     (stark)"; the server's model/seats.py name_for says the same), on every screen and in every sentence. */
  function nameOf(p) { return p && p.pi ? tr("pi_one", { color: cap(term(p.color)), level: tr("pi_level_" + p.pi) }) : (p && p.name); }
  function isPi(view, color) { return (view.players || []).some(function (q) { return q.color === color && q.pi; }); }
  function show(node, on) { if (node) node.hidden = !on; }

  /* The JSON API: always JSON, same origin, so the server's Origin check passes. */
  function api(method, path, body) {
    var opts = { method: method, credentials: "same-origin", headers: { "Accept": "application/json" } };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    function lost() { return { ok: false, status: 0, data: { error: tr("network_error") } }; }
    // the body can be cut off too (Wi-Fi gone mid-answer, or the page left): a network error, never a stuck promise
    return fetch(path, opts).then(function (r) {
      return r.text().then(function (t) {
        var data = null;
        try { data = t ? JSON.parse(t) : null; } catch (e) { data = null; }
        return { ok: r.ok, status: r.status, data: data };
      }, lost);
    }, lost);
  }
  function errorOf(res) { return (res.data && res.data.error) || tr("network_error"); }

  /* The storage notice every view carries (read-only, full, an action lost): a phone that only reconnects is told too. */
  function storageNotice(view) {
    var p = $("storage"), n = view.storage;
    if (!p || !("storage" in view)) return;
    show(p, !!n);
    p.textContent = n ? tr(n.key, { player: n.player ? who(view, n.player) : "", value: n.value, nb: n.nb, path: n.path }) : "";
  }

  /* The live view: one WebSocket with backoff, reopened when the phone wakes or the page comes back. The connection
     `conn` is what its parts share (openSocket, retry, dropSocket, probe, wakeUp); nothing else touches it. */
  function live(gameId, viewed, onState) {
    var conn = { gameId: gameId, ws: null, seq: -1, delay: 500, timer: null, alive: false, closedByUs: false,
                 acts: pendingActs() };
    // `fresh`: a new socket's first view, the server's state now. It is taken even when its count is below the
    // page's: after a restart that lost an action, the page must not keep showing what is no longer so.
    conn.onView = function (view, fresh) { storageNotice(view); viewed(view, fresh); };
    conn.setAlive = function (on) {   // onState only on a change, not at every message
      var changed = conn.alive !== on;
      conn.alive = on;
      if (changed) onState(on);
    };
    var wake = function () { wakeUp(conn); }, drop = function () { dropSocket(conn); };
    document.addEventListener("visibilitychange", wake);
    window.addEventListener("pageshow", function (ev) {
      if (ev.persisted) { conn.delay = 500; drop(); }
    });
    window.addEventListener("online", wake);
    window.addEventListener("offline", drop);
    var probeTimer = setInterval(function () { probe(conn); }, 10000);
    openSocket(conn);
    return {
      get alive() { return conn.alive; },
      // A bid or a pass over the open socket; null when it is not open (the caller posts).
      act: function (body) { return conn.ws && conn.ws.readyState === 1 && conn.alive ? conn.acts.send(conn.ws, body) : null; },
      reopen: function () { conn.delay = 500; drop(); },
      stop: function () {
        conn.closedByUs = true;
        clearTimeout(conn.timer);
        clearInterval(probeTimer);
        if (conn.ws) conn.ws.close();
      }
    };
  }
  function openSocket(conn) {
    clearTimeout(conn.timer);
    if (conn.ws && (conn.ws.readyState === 0 || conn.ws.readyState === 1)) return;
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
      "/api/games/" + encodeURIComponent(conn.gameId) + "/live" + (conn.seq >= 0 ? "?since=" + conn.seq : "");
    // The socket the phone's head opened (static/socket.js keeps it on its own element), taken over once.
    var opener = document.querySelector("script[data-game]"), early = opener && opener.socket, sock, waiting = [];
    if (opener) opener.socket = null;
    if (early && early.url === url && early.ws.readyState <= 1) { sock = conn.ws = early.ws; waiting = early.views; }
    else {
      if (early) { try { early.ws.close(); } catch (e) { /* gone already */ } }
      try { sock = conn.ws = new WebSocket(url); } catch (e) { retry(conn); return; }
    }
    var first = true;
    sock.onopen = function () { conn.delay = 500; };
    sock.onmessage = function (ev) {
      if (conn.ws !== sock) return;
      var view;
      try { view = JSON.parse(ev.data); } catch (e) { return; }
      if (!view || typeof view !== "object") return;
      if ("ack" in view) { conn.acts.answered(view); return; }
      if (typeof view.seq === "number") conn.seq = view.seq;
      conn.setAlive(true);
      conn.onView(view, first);
      if (first) conn.acts.resend(sock);   // the server answers an id it applied
      first = false;
    };
    sock.onclose = function () {
      if (conn.ws !== sock) return;
      conn.ws = null;
      conn.setAlive(false);
      if (!conn.closedByUs) retry(conn);
    };
    sock.onerror = function () { try { sock.close(); } catch (e) { /* closing anyway */ } };
    waiting.forEach(function (ev) { sock.onmessage(ev); });   // what the early socket received before app.js ran
  }
  /* Acts sent over a socket and waiting for their answer (web/live_acts.py), answered as api() answers a POST. Sent
     once: a new socket resends the same id, which is never applied twice; without an answer in 15 s it is a
     network error, as a lost POST is (its expect_seq guards a retry). */
  function pendingActs() {
    var pending = {};   // action id -> what was sent and waits an answer
    return {
      send: function (ws, body) {
        var id = Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
        var text = JSON.stringify({ id: id, act: body });
        return new Promise(function (resolve) {
          pending[id] = { text: text, resolve: resolve, timer: setTimeout(function () {
            delete pending[id];
            resolve({ ok: false, status: 0, data: { error: tr("network_error") } });
          }, 15000) };
          ws.send(text);
        });
      },
      answered: function (msg) {
        var p = pending[msg.ack];
        if (!p) return;
        delete pending[msg.ack];
        clearTimeout(p.timer);
        p.resolve({ ok: msg.status >= 200 && msg.status < 300, status: msg.status, data: msg.body, socket: true });
      },
      resend: function (sock) { for (var id in pending) sock.send(pending[id].text); }
    };
  }
  function retry(conn) {
    clearTimeout(conn.timer);
    conn.timer = setTimeout(function () { openSocket(conn); }, conn.delay);
    conn.delay = Math.min(conn.delay * 2, 8000);
  }
  function dropSocket(conn) {
    var ws = conn.ws;
    if (ws) { ws.onclose = ws.onmessage = ws.onerror = null; try { ws.close(); } catch (e) { /* already gone */ } }
    conn.ws = null;
    conn.setAlive(false);
    retry(conn);
  }
  /* A dead Wi-Fi link may never close the socket: a plain GET tells whether the server is still there. */
  function probe(conn) {
    if (document.visibilityState === "hidden" || conn.closedByUs) return;
    api("GET", "/api/games/" + encodeURIComponent(conn.gameId)).then(function (res) {
      if (conn.closedByUs) return;
      if (res.status === 0) { dropSocket(conn); return; }
      if (res.ok && res.data && typeof res.data.seq === "number" && res.data.seq > conn.seq && conn.alive) {
        conn.seq = res.data.seq;
        conn.onView(res.data);
      }
    });
  }
  function wakeUp(conn) {
    if (document.visibilityState === "hidden") return;
    if (!conn.ws || conn.ws.readyState > 1) { conn.delay = 500; openSocket(conn); } else probe(conn);
  }

  /* Status line: whose turn. */
  function status(node, view) {
    node.className = "status";
    node.textContent = "";
    if (view.phase === "lobby") { node.textContent = tr("lobby"); return; }
    if (view.phase === "board") { node.textContent = tr("table_scoring"); return; }
    if (view.phase === "finished") { node.textContent = tr("game_over"); node.classList.add("over"); return; }
    if (view.phase === "abandoned") { node.textContent = tr("abandoned_title"); node.classList.add("over"); return; }
    if (!view.to_act) return;
    var mine = view.you && view.you.color === view.to_act;
    node.appendChild(chip(view.to_act));
    node.appendChild(document.createTextNode(" " + (mine ? tr("your_turn") : cap(tr(isPi(view, view.to_act) ? "pi_thinking" : "to_act", { player: who(view, view.to_act) })))));
    node.classList.add(mine ? "mine" : "theirs");
  }

  /* The current call, who can still outbid, and what the last call did. */
  function callPanel(view) {
    var ul = $("call");
    ul.textContent = "";
    (view.call || []).forEach(function (b) {
      var li = el("li");
      li.appendChild(chip(b.color));
      li.appendChild(document.createTextNode(" " + tr("bid_line", { player: who(view, b.color), value: b.value, nb: b.neighborhood })));
      ul.appendChild(li);
    });
    if (!(view.call || []).length) ul.appendChild(el("li", "hint", tr("no_bids")));
    var out = $("outbid");
    if (view.phase === "playing" && (view.call || []).length) {
      var names = (view.could_outbid || []).map(function (c) { return who(view, c); });
      out.textContent = tr("can_outbid", { players: names.length ? names.join(", ") : tr("nobody") });
    } else out.textContent = "";
    var lc = $("lastcall");
    lc.textContent = "";
    var c = view.last_call;
    if (c) {
      lc.appendChild(el("p", "", tr("last_call", { player: who(view, c.color), value: c.value, nb: c.neighborhood })));
      if (c.token) lc.appendChild(el("p", "", tr("took_token", { player: who(view, c.color), token: term(c.token) })));
      if (c.subway_card) lc.appendChild(el("p", "", tr("card_to", { card: tr("card_subway"), player: who(view, c.subway_card) })));
      if (c.archaeological_card) lc.appendChild(el("p", "", tr("card_to", { card: tr("card_archaeological"), player: who(view, c.archaeological_card) })));
    }
  }

  /* One line per player: colour, name, buildings in hand and built, tokens, special cards. */
  function playersPanel(node, view) {
    node.textContent = "";
    var tbl = el("table", "ptable");
    var head = el("tr");
    ["", "", tr("in_hand"), tr("built_count"), tr("tokens")].forEach(function (h) { head.appendChild(el("th", "", h)); });
    tbl.appendChild(head);
    (view.players || []).forEach(function (p) {
      var row = el("tr", p.color === view.to_act ? "acting" : "");
      var td = el("td"); td.appendChild(chip(p.color)); row.appendChild(td);
      var nm = el("td", "pname");
      nm.appendChild(el("span", "nm", (nameOf(p) || "–") + (view.you && view.you.color === p.color ? " (" + tr("you") + ")" : "")));
      if (p.color === view.host_color) nm.appendChild(el("span", "tag", tr("host_mark")));
      if (p.seated && p.online === false) nm.appendChild(el("span", "tag off", tr("offline_mark")));
      if (view.subway_card === p.color) nm.appendChild(el("span", "tag sub", tr("card_subway")));
      if (view.archaeological_card === p.color) nm.appendChild(el("span", "tag arch", tr("card_archaeological")));
      row.appendChild(nm);
      row.appendChild(el("td", "vals", (p.values || []).join(" ")));
      row.appendChild(el("td", "num", p.buildings || 0));
      var tk = el("td", "toks"), t = p.tokens || {};
      ["trendy", "subway", "archaeological"].forEach(function (k) {
        if (!t[k]) return;
        var span = el("span", "tk"), icon = svgEl("svg", { "class": "ti", viewBox: "0 0 20 20" });
        icon.appendChild(svgEl("use", { href: "#t-" + k }));
        span.appendChild(icon);
        span.appendChild(document.createTextNode(String(t[k])));
        tk.appendChild(span);
        tk.appendChild(document.createTextNode(" "));
      });
      row.appendChild(tk);
      tbl.appendChild(row);
    });
    var wrap = el("div", "scroll"); wrap.appendChild(tbl); node.appendChild(wrap);
  }

  function cardMeaning(mode, area, neighborhood) {
    var out = [];
    if (area) out.push({ title: tr("card_title", { card: tr("area_card"), name: term(area) }), text: tr("area_" + mode + "_" + area) });
    if (neighborhood) out.push({ title: tr("card_title", { card: tr("neighborhood_card"), name: cap(term(neighborhood)) }), text: tr("neighborhood_meaning", { kind: term(neighborhood) }) });
    return out;
  }

  /* The end: revealed cards, a line per scoring rule, the winner and the tie-break used. */
  function endPanel(node, view, gameId) {
    node.textContent = "";
    var sc = view.scores;
    if (!sc) return;
    var names = (sc.winners || []).map(function (c) { return who(view, c); }).join(", ");
    node.appendChild(el("p", "winner", tr(sc.winners && sc.winners.length > 1 ? "winners_shared" : "winner", { players: names })));
    node.appendChild(el("p", "hint", tr("tiebreak_" + (view.tiebreak || "points"))));
    var colors = (view.players || []).map(function (p) { return p.color; });
    // Narrow phones: the headings keep only the colour; this key names the players.
    var key = el("ul", "scorekey");
    colors.forEach(function (c) { var li = el("li"); li.appendChild(chip(c)); li.appendChild(document.createTextNode(" " + who(view, c))); key.appendChild(li); });
    node.appendChild(key);
    var rows = ["trendy", "subway", "subway_card", "archaeological", "archaeological_card", "area"];
    if (view.mode === "expert") rows.push("neighborhood", "highest");
    var wrap = el("div", "scroll"); wrap.appendChild(scoreTable(view, colors, rows)); node.appendChild(wrap);
    // What scored, player by player: on narrow phones the table's cells are too small to name it.
    var scored = el("ul", "scored");
    colors.forEach(function (c) {
      rows.forEach(function (key) {
        var note = detailNote(view, c, key);
        if (note) { var li = el("li"); li.appendChild(chip(c)); li.appendChild(document.createTextNode(" " + tr("row_" + key) + " – " + note)); scored.appendChild(li); }
      });
    });
    node.appendChild(scored);
    revealedCards(node, view, colors);
    if (view.from_board) return;   // scored from the board: no bids were recorded
    var watch = el("a", "btn big primary", tr("replay_watch"));   // static/replay.js: the game again, step by step
    watch.href = "/g/" + encodeURIComponent(gameId) + "/replay";
    node.appendChild(watch);
    var a = el("a", "btn big", tr("download"));
    a.href = "/api/games/" + encodeURIComponent(gameId) + "/record";
    a.setAttribute("download", "metropolys-" + gameId + ".json");
    node.appendChild(a);
  }
  /* The tally as a table: a column per player, a row per scoring rule, then the totals and the buildings. */
  function scoreTable(view, colors, rows) {
    var sc = view.scores, tbl = el("table", "scores"), head = el("tr");
    head.appendChild(el("th", "rowh"));  // table-layout:fixed takes column widths from this first row
    colors.forEach(function (c) {
      var th = el("th"), p = (view.players || []).filter(function (q) { return q.color === c; })[0];
      th.appendChild(chip(c));
      th.appendChild(el("div", "small", nameOf(p) || cap(term(c))));
      head.appendChild(th);
    });
    tbl.appendChild(head);
    rows.forEach(function (key) {
      var r = el("tr");
      r.appendChild(el("th", "rowh", tr("row_" + key)));
      colors.forEach(function (c) {
        var p = sc.players[c] || { breakdown: {} };
        var v = p.breakdown[key] || 0;
        var td = el("td", "num" + (v < 0 ? " neg" : ""), (v > 0 ? "+" : "") + v);
        var note = detailNote(view, c, key);
        if (note) td.appendChild(el("div", "small", note));
        r.appendChild(td);
      });
      tbl.appendChild(r);
    });
    [["total", function (p) { return p.total; }], ["buildings", function (p) { return p.buildings; }]].forEach(function (row) {
      var decides = (row[0] === "total" && view.tiebreak === "points") || (row[0] === "buildings" && view.tiebreak !== "points");
      var r = el("tr", "tot" + (decides ? " decider" : ""));
      r.appendChild(el("th", "rowh", tr("row_" + row[0])));
      colors.forEach(function (c) { r.appendChild(el("td", "num" + ((sc.winners || []).indexOf(c) >= 0 && row[0] === "total" ? " win" : ""), row[1](sc.players[c] || {}))); });
      tbl.appendChild(r);
    });
    return tbl;
  }
  /* Every seat's secret cards, revealed at the end, each with what it means. */
  function revealedCards(node, view, colors) {
    var rev = view.revealed || {};
    node.appendChild(el("h3", "", tr("revealed")));
    colors.forEach(function (c) {
      var cards = rev[c] || {};
      var div = el("div", "reveal");
      div.appendChild(chip(c));
      div.appendChild(el("b", "", " " + who(view, c)));
      cardMeaning(view.mode, cards.area, cards.neighborhood).forEach(function (m) {
        div.appendChild(el("p", "", m.title + " — " + m.text));
      });
      node.appendChild(div);
    });
  }
  function detailNote(view, color, key) {
    var d = (view.details || {})[color];
    if (!d) return "";
    if (key === "area") {
      var card = ((view.revealed || {})[color] || {}).area;
      if (d.area_buildings && d.area_buildings.length)
        return tr({ borders: "detail_border", lakes: "detail_lakes", statues: "detail_statues", bridges: "detail_bridges" }[card] || "detail_area_buildings", { nbs: d.area_buildings.join(", ") });
      if (d.area_group_list && d.area_group_list.length)
        return tr("detail_groups_list", { groups: d.area_group_list.map(function (g) { return g.join(" + "); }).join(", ") });
      if (d.area_groups) return tr("detail_area_groups", { n: d.area_groups });
    }
    if (key === "highest" && d.highest_districts && d.highest_districts.length)
      return tr("detail_highest", { districts: d.highest_districts.map(term).join(", ") });
    if (key === "neighborhood" && d.neighborhood_buildings && d.neighborhood_buildings.length) {
      var card = ((view.revealed || {})[color] || {}).neighborhood;
      return tr("detail_kind_buildings", { kind: term(card || ""), nbs: d.neighborhood_buildings.join(", ") });
    }
    return "";
  }

  /* The shown view's number, phase and liveness as attributes: what a test (or a curious player) waits on. */
  function mark(node, view, on) {
    node.setAttribute("data-seq", view.seq);
    node.setAttribute("data-phase", view.phase);
    node.setAttribute("data-to-act", view.to_act || "");
    node.setAttribute("data-live", on ? "1" : "0");
  }

  function connBadge(on) {
    var c = $("conn");
    if (!c) return;
    c.className = "conn " + (on ? "on" : "off");
    c.textContent = on ? "●" : tr("reconnecting");
  }

  /* How to play: a card over the page (which stays live) holding /learn, fetched only the first time it opens. */
  document.addEventListener("click", function (ev) {
    var over = $("learn-overlay");
    if (!over || !ev.target.closest) return;
    if (ev.target.closest("[data-learn]")) {
      var later = $("learn-frame-later");   // the frame, made (and its page fetched) the first time only
      if (later && !$("learn-frame")) later.parentNode.appendChild(document.importNode(later.content, true));
      over.hidden = false;
    } else if (ev.target.closest("#learn-close") || ev.target === over) over.hidden = true;
  });
  document.addEventListener("keydown", function (ev) { var over = $("learn-overlay"); if (over && ev.key === "Escape") over.hidden = true; });

  /* Language switcher: a cookie the server reads, then the page again in that language. */
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("[data-lang]") : null;
    if (!b) return;
    document.cookie = "lang=" + b.getAttribute("data-lang") + "; path=/; max-age=31536000; samesite=lax";
    location.reload();
  });

  BoardMap.words = { ui: S.ui, tr: tr, term: term, cap: cap };   // the map in the page's language

  return { nameOf: nameOf, sayOf: sayOf, isPi: isPi, S: S, tr: tr, pluralIndex: pluralIndex, term: term, cap: cap, letter: letter, $: $, el: el, chip: chip, who: who, show: show,
    api: api, errorOf: errorOf, Map: BoardMap, live: live, status: status, callPanel: callPanel,
    playersPanel: playersPanel, endPanel: endPanel, detailNote: detailNote, cardMeaning: cardMeaning, connBadge: connBadge, mark: mark };
})();
export { M };
