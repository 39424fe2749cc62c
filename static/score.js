/* Score a game played on the board alone: each phone enters its own colour (the host any colour); the server checks
   every entry and says what is wrong; the tally is the end screen's own panel. */
import { M } from "./app.js";
(function () {
  var $ = M.$, tr = M.tr, term = M.term, el = M.el;
  var gameId = $("app").getAttribute("data-game");
  var AREAS = { family: ["bridges", "statues", "lakes", "borders"], expert: ["bridges", "statues", "lakes", "districts", "chains"] };
  var KINDS = ["mall", "administration", "industrial", "park", "lodgings"];
  var TOKENS = ["trendy", "subway", "archaeological"], HEIGHTS = ["small", "medium", "tall"];

  /* A refusal stands at the bottom of the screen, near the thumb that tapped, until the next entry or a tap on it. */
  function say(text) { var m = $("msg"); m.textContent = text || ""; m.className = "msg" + (text && gameId ? " toast" : ""); m.hidden = !text; }
  function button(text, cls, pressed, onclick) {
    var b = el("button", "btn " + (cls || ""), text);
    b.type = "button";
    if (pressed !== null) b.setAttribute("aria-pressed", pressed ? "true" : "false");
    b.addEventListener("click", onclick);
    return b;
  }

  if (!gameId) { $("conn").hidden = true; newBoard(); return; }   // no game yet: no live connection to wait for

  /* The first screen: the mode, the colours at the table, the districts out of play; the server checks them. */
  function newBoard() {
    // A colour left out of the table asks no name; a colour at it asks its player's name now, not at the tally.
    function names() {
      [].forEach.call($("new").querySelectorAll("input[name=color]"), function (box) {
        var input = $("new").querySelector("input[data-name=" + box.value + "]");
        input.disabled = !box.checked;
        input.required = box.checked;
      });
    }
    [].forEach.call($("new").querySelectorAll("input[name=color]"), function (box) { box.addEventListener("change", names); });
    names();
    $("new").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var form = $("new");
      var body = {
        mode: form.querySelector("input[name=mode]:checked").value,
        players: [].map.call(form.querySelectorAll("input[name=color]:checked"), function (i) { return i.value; }),
        removed_districts: [].map.call(form.querySelectorAll("input[name=removed]:checked"), function (i) { return i.value; }),
        names: {}
      };
      body.players.forEach(function (c) {
        var v = form.querySelector("input[data-name=" + c + "]").value.trim();
        if (v) body.names[c] = v;
      });
      $("begin").disabled = true;
      M.api("POST", "/api/boards", body).then(function (res) {
        $("begin").disabled = false;
        if (res.ok) location.href = res.data.url;
        else say(M.errorOf(res));
      });
    });
  }

  var map = new M.Map($("map"));
  var view = null, online = false, pen = null, height = "small", busy = false, picks = {}, plays = null, joinColor = null;

  function post(path, body) {
    busy = true;
    render();   // the steppers wait for this answer: a second tap never counts from a stale number
    return M.api("POST", "/api/games/" + encodeURIComponent(gameId) + path, body).then(function (res) {
      busy = false;
      if (res.ok) { say(""); take(res.data); } else { say(M.errorOf(res)); render(); }
      return res;
    });
  }
  function take(next) {
    if (!next || typeof next !== "object" || !next.phase) return;
    if (view && next.seq < view.seq) return;
    view = next;
    render();
  }
  function mine(color) { return !!view && (view.host || (!!view.you && view.you.color === color)); }

  function render() {
    if (!view) return;
    M.mark($("app"), view, online);
    M.status($("status"), view);
    var entering = view.phase === "board";
    if (entering && (!pen || !mine(pen))) pen = view.you ? view.you.color : view.players[0].color;
    M.show($("join"), entering && !view.you && !view.host);
    M.show($("entry"), entering && (!!view.you || view.host));
    M.show($("end"), view.phase === "finished");
    map.paint(view);
    if (entering) { join(); pens(); counts(); tokens(); holders(); secret(); }
    M.show($("tally"), entering && view.host);
    M.show($("join-qr"), entering && view.host);   // the other players scan it to enter their own colour
    if (view.phase === "finished") end();
  }

  function join() {
    var box = $("join-colors");
    box.textContent = "";
    view.players.forEach(function (p) {
      if (p.seated) return;
      var b = button(" " + M.cap(term(p.color)) + (p.name ? " – " + p.name : ""), "", joinColor === p.color, function () {
        joinColor = p.color;
        if (p.name && !$("join-name").value) $("join-name").value = p.name;   // named when the board was set up
        render();
      });
      b.insertBefore(M.chip(p.color), b.firstChild);
      b.setAttribute("data-join", p.color);
      box.appendChild(b);
    });
  }
  $("join").addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (!joinColor) return;
    post("/seats/" + joinColor, { name: $("join-name").value });
  });

  /* Whose buildings a tap enters (the host picks; a player enters their own), and in Expert at what height. */
  function pens() {
    var box = $("pens");
    box.textContent = "";
    view.players.forEach(function (p) {
      if (!mine(p.color)) return;
      var b = button("", "small pen", p.color === pen, function () { pen = p.color; render(); });
      b.appendChild(M.chip(p.color));
      b.appendChild(document.createTextNode(" " + (p.name || M.cap(term(p.color)))));
      b.setAttribute("data-pen", p.color);
      box.appendChild(b);
    });
    // The host names a colour nobody sat down on: the history and the standings count players by name.
    var holder = view.players.filter(function (p) { return p.color === pen; })[0] || {};
    M.show($("pen-name-row"), view.host && !holder.seated);
    if (document.activeElement !== $("pen-name")) $("pen-name").value = holder.name || "";
    M.show($("heights"), view.mode === "expert");
    [].forEach.call(document.querySelectorAll("[data-height]"), function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-height") === height ? "true" : "false");
    });
  }
  $("pen-name-row").addEventListener("submit", function (ev) {
    ev.preventDefault();
    $("pen-name").blur();
    post("/board/names/" + pen, { name: $("pen-name").value });
  });
  [].forEach.call(document.querySelectorAll("[data-height]"), function (b) {
    b.addEventListener("click", function () { height = b.getAttribute("data-height"); render(); });
  });

  /* Each colour's count on one line; the pen colour's heights under it (what a 6th small building would break). */
  function counts() {
    var box = $("counts");
    box.textContent = "";
    var built = view.board.buildings, line = el("div", "countline"), heights = null;
    view.players.forEach(function (p) {
      var n = { small: 0, medium: 0, tall: 0 }, total = 0;
      for (var nb in built) if (built[nb].color === p.color) { total++; if (built[nb].height) n[built[nb].height]++; }
      var c = el("span", "count1");
      c.setAttribute("data-count", p.color);
      c.appendChild(M.chip(p.color));
      c.appendChild(el("b", "", " " + total));
      line.appendChild(c);
      if (p.color === pen) heights = { total: total, n: n };
    });
    line.appendChild(el("span", "small", "/ 13"));
    box.appendChild(line);
    if (heights && view.mode === "expert") {
      var mine = el("div", "small");
      mine.appendChild(M.chip(pen));
      mine.appendChild(document.createTextNode(" " + tr("score_count", { n: heights.total }) + " (" + tr("score_count_heights", heights.n) + ")"));
      box.appendChild(mine);
    }
  }

  map.onTap(function (nb) {
    if (!view || view.phase !== "board" || !pen) return;
    var b = view.board.buildings[nb], expert = view.mode === "expert";
    var body = { neighborhood: nb, color: pen };
    if (b && b.color === pen && (!expert || b.height === height)) body.color = null;   // tapped again: taken off
    else if (expert) body.height = height;
    post("/board/buildings", body);
  });

  /* The pen colour's tokens, one tap each way; the whole count is sent, so a lost answer never counts twice. */
  function tokens() {
    var box = $("tokens"), have = view.board.tokens[pen];
    box.textContent = "";
    TOKENS.forEach(function (kind, k) {
      var row = el("div", "row tokrow");
      row.setAttribute("data-tokens", kind);
      row.appendChild(el("span", "grow", M.cap(term(kind))));
      var less = button("−", "small", null, function () { step(k, -1); });
      less.setAttribute("aria-label", tr("score_less") + " – " + term(kind));
      less.disabled = busy || have[kind] === 0;
      less.setAttribute("data-step", "-1");
      var more = button("+", "small", null, function () { step(k, 1); });
      more.setAttribute("aria-label", tr("score_more") + " – " + term(kind));
      more.disabled = busy;
      more.setAttribute("data-step", "1");
      row.appendChild(less);
      row.appendChild(el("b", "tokn", String(have[kind])));
      row.appendChild(more);
      box.appendChild(row);
    });
  }
  function step(k, by) {
    var have = view.board.tokens[pen];
    var next = TOKENS.map(function (kind) { return have[kind]; });
    next[k] += by;
    if (next[k] < 0 || busy) return;
    post("/board/tokens/" + pen, { tokens: next });
  }

  function holders() {
    var box = $("holders");
    box.textContent = "";
    ["subway", "archaeological"].forEach(function (card) {
      var row = el("div", "stack holder");
      row.setAttribute("data-holder", card);
      row.appendChild(el("span", "", tr("score_holder", { card: term(card) })));
      var choices = el("div", "choices");
      var held = view.board[card + "_card"];
      view.players.concat([{ color: null }]).forEach(function (p) {
        var b = button(p.color ? "" : tr("score_nobody"), "small", held === p.color, function () {
          post("/board/holders/" + card, { color: p.color });
        });
        if (p.color) b.appendChild(M.chip(p.color));
        b.setAttribute("data-who", p.color || "nobody");
        choices.appendChild(b);
      });
      row.appendChild(choices);
      box.appendChild(row);
    });
  }

  /* The pen colour's secret cards: shown back only on that player's own phone (the host is told "entered"). */
  function secret() {
    var box = $("secret");
    box.textContent = "";
    var own = view.you && view.you.color === pen ? view.you : {};
    var pick = picks[pen] || (picks[pen] = { area: own.area || null, neighborhood: own.neighborhood || null });
    function group(label, list, field) {
      box.appendChild(el("h3", "", label));
      var choices = el("div", "choices");
      list.forEach(function (card) {
        var b = button(field === "area" ? term(card) : M.cap(term(card)), "small", pick[field] === card, function () {
          pick[field] = card;
          var color = pen;
          if (pick.area && (view.mode === "family" || pick.neighborhood))
            post("/board/secret/" + color, { area: pick.area, neighborhood: view.mode === "expert" ? pick.neighborhood : null }).then(function (res) {
              // Refused (a card entered for another colour): the pick goes back to what this phone has saved.
              if (!res.ok) { var own = view.you && view.you.color === color ? view.you : {}; picks[color] = { area: own.area || null, neighborhood: own.neighborhood || null }; render(); }
            });
          else render();
        });
        b.setAttribute("data-" + field, card);
        choices.appendChild(b);
      });
      box.appendChild(choices);
    }
    group(tr("area_card"), AREAS[view.mode], "area");
    if (view.mode === "expert") group(tr("neighborhood_card"), KINDS, "neighborhood");
    var ul = $("entered");
    ul.textContent = "";
    view.players.forEach(function (p) {
      var li = el("li", "prow");
      li.setAttribute("data-entered", p.color);
      li.appendChild(M.chip(p.color));
      var done = view.board.cards_entered.indexOf(p.color) >= 0;
      li.appendChild(el("span", done ? "" : "free", " " + (p.name || M.cap(term(p.color))) + " – " + tr(done ? "score_entered" : "score_not_entered")));
      ul.appendChild(li);
    });
  }

  $("msg").addEventListener("click", function () { say(""); });
  $("tally").addEventListener("click", function () { post("/board/tally", {}); });

  /* The end screen's own panel, then where the play goes next: BG Stats and the history. */
  function end() {
    var box = $("end");
    M.endPanel(box, view, gameId);
    box.insertBefore(el("p", "hint saved", tr("score_saved")), box.firstChild);
    if (plays === null) {
      plays = false;
      M.api("GET", "/api/games/" + encodeURIComponent(gameId) + "/bgstats").then(function (res) {
        plays = res.ok ? res.data : null;
        render();
      });
    }
    var links = el("div", "bgs");
    if (plays) {
      var app = el("a", "btn big primary", tr("bgstats_app"));
      app.href = plays.app;
      app.id = "bgstats-app";
      var web = el("a", "btn small", tr("bgstats_web"));
      web.href = plays.web;
      web.id = "bgstats-web";
      web.target = "_blank";
      web.rel = "noopener";
      links.appendChild(app);
      links.appendChild(web);
    }
    var past = el("a", "btn small", tr("score_open_history"));
    past.href = "/history";
    links.appendChild(past);
    box.insertBefore(links, box.children[3] || null);
  }

  M.live(gameId, take, function (on) { online = on; M.connBadge(on); render(); });
})();
