/* The phone page: lobby, my turn (neighborhood, value, confirm, or pass), my secret cards, the end. */
import "./map-fit.js";
import { M } from "./app.js";
import { G } from "./glance.js";
import { B } from "./board-steps.js";
import { evening } from "./evening.js";
import { Review } from "./review.js";
var phone = (function () {
  var $ = M.$, tr = M.tr, term = M.term;
  var gameId = $("app").getAttribute("data-game");
  var map = new M.Map($("map"));
  map.halos(6);
  var checker = null;   /* the host's district-by-district check of the tokens: built when a lobby is first shown */
  var view = null, online = false, picked = null, value = null, busy = false, joinColor = null;
  var hooks = [];   /* evening.js: seat moves, the host role, rematch, abandon */
  var dismissed = null, tapTimer = null;   /* the call-over card this phone closed; the refusal toast's timer */
  var whole = false, wasMine = false, hintOpen = false;   /* this turn the player asked for the whole board; it was this phone's turn at the last render */
  var AREAS = { family: ["bridges", "statues", "lakes", "borders"], expert: ["bridges", "statues", "lakes", "districts", "chains"] };
  var KINDS = ["mall", "administration", "industrial", "park", "lodgings"];

  function say(text, good) { var m = $("msg"); m.textContent = text || ""; m.className = "msg" + (good ? " good" : ""); }

  function take(next, fresh) {
    if (!next || typeof next !== "object" || !next.phase) return;
    if (next.phase === "board") { location.replace("/score/" + encodeURIComponent(gameId)); return; }   // its own page
    if (!fresh && view && typeof next.seq === "number" && typeof view.seq === "number" && next.seq < view.seq) return;
    var moved = !view || next.seq !== view.seq;
    view = next;
    if (moved) { picked = null; value = null; whole = false; hintOpen = false; which(null); toast(""); }   // a refusal is stale once the game moved on
    soon();
  }

  /* One render per task: a socket message that also brings the page live, or an answer with its view, draws once
     (on an old phone each render of the whole page costs a visible moment). */
  var queued = false;
  function soon() {
    if (queued) return;
    queued = true;
    Promise.resolve().then(function () { queued = false; render(); });
  }

  function myTurn() { return view && view.phase === "playing" && view.legal && view.you && view.to_act === view.you.color; }

  function render() {
    if (!view) return;
    M.mark($("app"), view, online);
    M.status($("status"), view);
    $("status").classList.toggle("stale", !online);
    lobby();
    turn();
    firstHint();
    reminder();
    map.paint(view);
    M.show($("layout"), view.phase === "lobby");
    if (view.phase === "lobby") {   // the token list and its check are shown only there: not rebuilt at every bid
      map.list($("layout-list"), view.tokens, view.removed_districts);
      checker = checker || map.checker($("check"), $("layout-list"));
      checker.update(view.tokens, view.removed_districts);
    }
    M.show($("check"), !!view.host && view.phase === "lobby");
    map.mark(myTurn() && online ? view.legal.neighborhoods : null, picked);
    G.callOver($("callover"), view, dismissed, function (key) { dismissed = key; render(); });
    G.undone($("undone"), view);
    G.piMove($("pimove"), view);
    B.render($("board-steps"), view, view.you ? function (through) { post("/board/done", { through: through }); } : null);
    if ((view.board_pending || []).length) M.show($("pimove"), false);   // the steps say it already
    if (view.undone && view.undone.board) M.show($("undone"), false);   // the steps say what to put back
    G.logList($("log"), view, 12);
    M.show($("passed-note"), view.phase === "playing" && !!view.you && (view.passed || []).indexOf(view.you.color) >= 0);
    G.turnCue(!!myTurn());
    M.callPanel(view);
    M.playersPanel($("players"), view);
    M.show($("show-cards"), !!(view.you && (view.you.area || view.you.neighborhood)));
    // Arriving while the game is played, with no seat: told first that this phone watches.
    M.show($("watching"), !view.you && (view.phase === "playing" || view.phase === "finished"));
    G.hostCountdown($("host-gone"), view);
    M.show($("end"), view.phase === "finished");
    M.show($("end-top"), view.phase === "finished");
    if (view.phase === "finished") { M.endPanel($("end"), view, gameId); endTop(); playLinks(); skipShow(); } else plays = null;
    M.show($("host-tools"), !!view.host && (view.phase === "playing" || view.phase === "finished"));
    $("undo").disabled = !online || busy;
    hooks.forEach(function (f) { f(view, online, busy); });
    stage();
  }

  /* On this phone's turn the map is the screen: right under the bar, as tall as the screen leaves above the turn's
     instruction and Pass, zoomed to the call (the last bid and every neighborhood that may outbid it) with their
     numbers legible; the whole board one tap away (and a pinch, as everywhere). Everything else follows below it. */
  function stage() {
    var on = !!myTurn(), svg = $("map"), w = $("whole");
    $("app").classList.toggle("turnmode", on);
    document.body.classList.toggle("turnmode", on);
    if (on && !wasMine) window.scrollTo(0, 0);   // the turn starts on the first screen
    wasMine = on;
    var call = on ? view.call || [] : [], last = call[call.length - 1];
    var near = last ? [last.neighborhood].concat(Object.keys(view.legal.neighborhoods || {})) : [];
    var opening = on && !last && online && Object.keys(view.legal.neighborhoods || {}).length > 1;   // Zoom in: the board magnified
    M.show(w, near.length > 1 || opening);
    w.textContent = tr(whole !== opening ? "zoom_call" : "whole_board");
    $("turn").classList.toggle("quiet", near.length > 1 && whole);   // the whole board asked for: its buttons only
    $("turn").classList.toggle("opening", opening);   // Zoom in beside the instruction: the board keeps its height
    if (!(opening && whole)) map.magnify(svg.parentNode, null);
    if (!on) { svg.style.height = ""; map.look(null); map.fit(null); return; }
    // what the screen leaves at scroll 0 above the end of the dock (or of a message under it)
    var end = ($("msg").textContent ? $("msg") : $("turn")).getBoundingClientRect(), box = svg.parentNode.getBoundingClientRect();
    var h = Math.max(160, Math.floor(innerHeight - 4 - (box.top + window.pageYOffset) - (end.bottom - box.bottom)));
    map.fit(null);   // the tags where the drawing has them, as map.around measures the call
    if (opening && whole) map.magnify(svg.parentNode, view.legal.neighborhoods, box.width, h);   // scrolls (map-fit.js)
    else if (near.length > 1 && !whole) {
      svg.style.height = h + "px";
      map.look(map.around(near, box.width, h, 1.6), true);
      map.fit(online ? view.legal.neighborhoods || {} : null);   // touch targets and tags as drawn now (map-fit.js)
      map.legible(near, 14.5, 12.5);
    } else {   // the whole board, no taller than the width draws it: the dock right under it
      var b = map.board();
      svg.style.height = Math.min(h, Math.ceil(box.width * b[3] / b[2])) + "px";
      map.look(b);   // the compass stands over the board's corner (app.css)
      map.fit(online ? view.legal.neighborhoods || {} : null, false, opening);
    }
  }
  // a turned phone, not the address bar coming and going while the page scrolls
  var seen = [innerWidth, innerHeight];
  window.addEventListener("resize", function () {
    if (view && (innerWidth !== seen[0] || Math.abs(innerHeight - seen[1]) > 120)) { seen = [innerWidth, innerHeight]; soon(); }
  });

  /* A tap between two shapes, about as near to both: the player says which (never a guess). */
  function which(nbs) {
    var list = $("which-list");
    list.textContent = "";
    M.show($("which"), !!nbs);
    (nbs || []).forEach(function (nb) {
      var b = M.el("button", "btn big", nb);
      b.type = "button";
      b.setAttribute("data-pick", nb);
      b.onclick = function () { which(null); tapped(nb, map.hoods[nb]); };
      list.appendChild(b);
    });
  }
  $("which-cancel").onclick = function () { which(null); };

  /* BG Stats' "push plays from other apps" links, the same for every phone: asked for once, at the end. */
  var plays = null;
  function playLinks() {
    if (plays === null) {
      plays = false;
      M.api("GET", "/api/games/" + encodeURIComponent(gameId) + "/bgstats").then(function (res) {
        plays = res.ok && res.data ? res.data : (res.status === 0 ? null : false);
        if (plays) render();
      });
      return;
    }
    if (!plays) return;
    var box = M.el("div", "bgs");
    var app = M.el("a", "btn big primary", tr("bgstats_app"));
    app.href = plays.app;
    app.id = "bgstats-app";
    var web = M.el("a", "btn small", tr("bgstats_web"));
    web.href = plays.web;
    web.id = "bgstats-web";
    web.target = "_blank";
    web.rel = "noopener";
    var past = M.el("a", "btn small", tr("history_link"));
    past.href = "/history";
    box.appendChild(app);
    box.appendChild(web);
    box.appendChild(past);
    // At the top of the tally, right under the winner and "Play again": logging the play is what the table does next.
    var end = $("end");
    end.insertBefore(box, end.firstChild);
  }

  /* The winner and how the tie was broken, taken from the top of the tally to the top of the screen: "Play again"
     (the host's rematch) stands right under them, the board's last steps and the tally below. */
  function endTop() {
    var top = $("end-top"), end = $("end");
    top.textContent = "";
    [end.querySelector(".winner"), end.querySelector(".winner + .hint")].forEach(function (n) { if (n) top.appendChild(n); });
  }

  /* The host may end the table screen's line-by-line reveal of the tally (this phone never waits for it). */
  function skipShow() {
    if (!view.host || view.show_skipped) return;
    var b = M.el("button", "btn small", tr("skip_show"));
    b.type = "button";
    b.id = "skip-show";
    b.onclick = function () { post("/show/skip", {}); };
    $("end").insertBefore(b, $("end").firstChild);
  }

  function lobby() {
    var inLobby = view.phase === "lobby";
    M.show($("lobby"), inLobby);
    if (!inLobby) return;
    var ul = $("lobby-seats");
    ul.textContent = "";
    var free = [];
    view.players.forEach(function (p) {
      if (!p.name) free.push(p.color);
      ul.appendChild(lobbySeat(p));
    });
    var canJoin = !view.you && free.length > 0;
    M.show($("join"), canJoin);
    if (view.you) joinColor = null;
    if (joinColor && free.indexOf(joinColor) < 0) {
      // Taken a moment before by someone else: said, and never swapped for another colour.
      say(tr("seat_taken", { color: M.cap(term(joinColor)) }));
      joinColor = null;
    }
    if (canJoin) {
      var box = $("join-colors");
      box.textContent = "";
      free.forEach(function (c) {
        var b = M.el("button", "btn colorpick" + (c === joinColor ? " on" : ""));
        b.type = "button";
        b.setAttribute("aria-pressed", c === joinColor ? "true" : "false");
        b.appendChild(M.chip(c));
        b.appendChild(document.createTextNode(" " + M.cap(term(c))));
        b.onclick = function () { joinColor = c; lobby(); };
        box.appendChild(b);
      });
    }
    if (!view.you && !free.length) say(tr("spectator"), true);
    var physical = view.deal ? view.deal === "physical" : !!(view.you && !view.you.area);
    // Once every seat has entered its cards they are checked together and fixed: no form to change them.
    var allIn = view.players.every(function (p) { return p.pi || p.cards_entered; });
    M.show($("cards-form"), !!view.you && physical && !allIn);
    if (view.you && physical) cardsForm();
    M.show($("host-lobby"), !!view.host);
    M.show($("wait-start"), !view.host && !!view.you);
  }

  /* A seat in the lobby's list: its colour and who sits there; on the host's phone what the host may do with it. */
  function lobbySeat(p) {
    var li = M.el("li", "prow");
    li.appendChild(M.chip(p.color));
    var name = p.name ? p.name : tr("seat_free");
    if (view.you && view.you.color === p.color) name += " (" + tr("you") + ")";
    if (p.cards_entered === false && p.name) name += " – " + tr("cards_waiting");
    if (view.host && (view.new_devices || []).includes(p.color)) name += " – " + tr("new_device");
    var label = p.pi ? M.nameOf(p) : M.cap(term(p.color)) + " – " + name;
    li.appendChild(M.el("span", "grow" + (p.name ? "" : " free"), " " + label));
    if (view.host && p.pi) piLevels(li, p);   // "Pi Blue (strong)": another level, or a person plays
    else if (view.host && !p.name) piLevels(li, p);
    if (view.host && p.pi) {
      var back = M.el("button", "btn small", tr("pi_free"));
      back.type = "button";
      back.className = "btn small pi-free";
      back.onclick = function () { send("DELETE", "/seats/" + p.color + "/pi", {}); };
      li.appendChild(back);
    } else if (view.host && p.name) {
      var b = M.el("button", "btn small", tr("release"));
      b.type = "button";
      b.onclick = function () { post("/seats/" + p.color + "/release", {}); };
      li.appendChild(b);
    } else if (view.host && !p.name && view.players.length > 2) {
      var rm = M.el("button", "btn small", tr("remove_seat"));
      rm.type = "button";
      rm.onclick = function () { post("/seats/" + p.color + "/remove", {}); };
      li.appendChild(rm);
    }
    return li;
  }

  /* Beside a free colour (or the Pi's) on the host's phone: the Pi's level; picking one gives it the seat. */
  function piLevels(li, p) {
    var sel = M.el("select", "pi-level");
    sel.setAttribute("aria-label", tr("pi_take") + " – " + M.cap(term(p.color)));
    var none = M.el("option", "", p.pi ? tr("pi_take") : tr("pi_take") + "…");
    none.value = "";
    if (!p.pi) sel.appendChild(none);
    M.S.levels.forEach(function (lv) {
      var o = M.el("option", "", tr("pi_level_" + lv));
      o.value = lv;
      if (lv === p.pi) o.selected = true;
      sel.appendChild(o);
    });
    sel.setAttribute("data-color", p.color);
    sel.onchange = function () { if (sel.value) send("POST", "/seats/" + p.color + "/pi", { level: sel.value }); };
    li.appendChild(sel);
  }

  function options(select, values, current, label) {
    if (select.getAttribute("data-for") === values.join()) return;
    select.setAttribute("data-for", values.join());
    select.textContent = "";
    select.appendChild(M.el("option", "", "–")).value = "";
    values.forEach(function (v) {
      var o = M.el("option", "", label(v));
      o.value = v;
      if (v === current) o.selected = true;
      select.appendChild(o);
    });
  }
  function cardsForm() {
    var areas = AREAS[view.mode].filter(function (a) { return !(view.players.length === 2 && a === "borders"); });
    options($("card-area"), areas, view.you.area, term);
    options($("card-nb"), KINDS, view.you.neighborhood, function (k) { return M.cap(term(k)); });
    M.show($("card-nb-label"), view.mode === "expert");
  }

  function turn() {
    var mine = myTurn();
    M.show($("turn"), mine);
    M.show($("pick"), !!(mine && picked));
    if (!mine) return;
    var t = $("turn");
    t.classList.toggle("stale", !online);
    var legal = view.legal.neighborhoods || {};
    var hint = !online ? tr("offline_turn") : (view.call || []).length ? tr("outbid_hint") : tr("open_call");
    $("turn-hint").textContent = hint;
    var p = $("pass");
    M.show(p, !!view.legal.pass);
    p.disabled = !online || busy;
    if (picked) sheet(legal[picked] || []);
  }

  /* The values and Confirm in a sheet at the bottom, near the thumb: the map never moves under the finger. */
  function sheet(legalValues) {
    $("pick-title").textContent = tr("pick_value") + " – " + picked;
    var vals = $("values");
    vals.textContent = "";
    var me = view.players.filter(function (q) { return q.color === view.you.color; })[0] || { values: legalValues };
    var expert = view.mode === "expert", group = -1, box = vals;
    me.values.forEach(function (v) {
      var ok = legalValues.indexOf(v) >= 0, cls = v <= 5 ? 0 : v <= 9 ? 1 : 2;
      if (!ok && !G.valueRefusal(view, v)) return;
      if (expert && cls !== group) {
        group = cls;
        box = M.el("div", "vclass vclass-" + cls);
        box.appendChild(M.el("span", "vlabel", tr("class_" + cls)));
        vals.appendChild(box);
      }
      var b = M.el("button", "btn val" + (v === value ? " on" : "") + (ok ? "" : " no"), v);
      b.type = "button";
      b.disabled = !online || busy;
      if (!ok) b.setAttribute("aria-disabled", "true");
      b.onclick = function () {
        if (!ok) { toast(G.valueRefusal(view, v)); return; }
        value = v; turn();
      };
      box.appendChild(b);
    });
    vals.classList.toggle("grouped", expert);
    var c = $("confirm");
    M.show(c, !!value);
    c.textContent = value ? tr("confirm_bid", { value: value, nb: picked }) : "";
    c.disabled = !online || busy;
    M.show($("cancel"), true);
  }

  /* A refused tap: the rule's sentence at once, near the thumb; nothing is sent. It never covers what a thumb needs:
     right above the open sheet, or above the turn's dock (Whole board, Pass), over the map's edge; and it goes at the
     next tap, wherever that lands. */
  function toast(text) {
    var n = $("tapmsg");
    n.textContent = text || "";
    M.show(n, !!text);
    clearTimeout(tapTimer);
    if (text) { placeToast(n); tapTimer = setTimeout(function () { M.show(n, false); }, 5000); }
  }
  function placeToast(n) {
    var sheet = [$("which"), $("pick")].filter(function (e) { return !e.hidden; })[0];
    var dock = sheet || (myTurn() ? $("turn") : null), r = dock && dock.getBoundingClientRect();
    n.style.top = n.style.bottom = "";
    if (!r || r.top >= innerHeight || r.bottom <= 0) return;   // nothing docked on the screen: at its bottom (app.css)
    if (r.top - n.offsetHeight - 6 >= 0) { n.style.top = "auto"; n.style.bottom = (innerHeight - r.top + 6) + "px"; }
    else { n.style.bottom = "auto"; n.style.top = (r.bottom + 6) + "px"; }
  }
  ["pointerdown", "touchstart", "mousedown"].forEach(function (kind) {
    document.addEventListener(kind, function () { if (!$("tapmsg").hidden) toast(""); }, true);
  });

  /* A first game (the server says so, to this phone only, on its turns until its first bid): what to tap, from the
     call on the board. Turned off on this phone with Hide hints (kept in localStorage: a choice of this device only). */
  var HINTS = "metropolys-hints";
  function hintsOn() { try { return localStorage.getItem(HINTS) !== "0"; } catch (e) { return true; } }
  function setHints(on) { try { localStorage.setItem(HINTS, on ? "1" : "0"); } catch (e) { /* private mode */ } }
  function firstHint() {
    var text = "";
    if (myTurn() && view.first_game_hint && hintsOn()) {
      var call = view.call || [], last = call[call.length - 1];
      var open = Object.keys(view.legal.neighborhoods || {}).length > 0;
      if (!last) text = tr("hint_open");
      else {
        var params = { player: M.who(view, last.color), value: last.value, nb: last.neighborhood };
        text = tr(open ? "hint_outbid" : "hint_cannot", params);
      }
    }
    $("first-hint-text").textContent = text;
    M.show($("first-hint"), !!text);
    $("first-hint").classList.toggle("open", hintOpen);
  }

  function reminder() {
    var r = $("reminder");
    var mineBids = view.you && view.phase === "playing" ? (view.call || []).filter(function (b) { return b.color === view.you.color; }) : [];
    var last = mineBids[mineBids.length - 1];
    M.show(r, !!last);
    if (last) r.textContent = tr("put_real_bid", { value: last.value, nb: last.neighborhood });
  }

  function post(path, body) { return send("POST", path, body); }
  function send(method, path, body) {
    if (busy) return Promise.resolve(null);
    busy = true;
    say("");
    toast("");   // the next answer replaces a refusal: it never lingers over the call-over card
    render();
    var asked = path === "/actions" && sock.act(body);   // over the open live socket, else a POST
    return (asked || M.api(method, "/api/games/" + encodeURIComponent(gameId) + path, body)).then(function (res) {
      busy = false;
      if (res.data && res.data.view) take(res.data.view);
      else if (res.ok && res.data && res.data.phase) take(res.data);
      if (!res.ok) say(M.errorOf(res));
      soon();
      return res;
    });
  }

  /* One sheet at a time: the chooser replaces the value sheet, and a tap on the map closes the chooser first. */
  map.onTap(tapped, function (nbs) {
    if (!myTurn()) { tapped(nbs[0], map.hoods[nbs[0]]); return; }
    picked = null; value = null;
    which(nbs.slice().sort());   // in name order: the same buttons whatever the last digit of a distance
    render();
  }, function () { return myTurn() && online ? view.legal.neighborhoods || {} : null; });
  function tapped(nb, hood) {
    if (!view) return;
    which(null);
    var why = G.refusal(view, nb, hood && hood.district);
    if (why) { toast(why); return; }
    if (myTurn() && !online) { toast(tr("offline_turn")); return; }   // answered where the finger is
    if (!myTurn() || !online || busy) return;
    var legal = view.legal.neighborhoods || {};
    if (!legal[nb]) return;
    toast("");
    picked = nb;
    value = legal[nb].length === 1 ? legal[nb][0] : null;
    render();
  }
  $("whole").onclick = function () { whole = !whole; render(); };
  $("first-hint-text").onclick = function () { hintOpen = !hintOpen; render(); };
  $("cancel").onclick = function () { picked = null; value = null; render(); };
  $("confirm").onclick = function () {
    if (!picked || !value) return;
    post("/actions", { bid: picked, value: value, expect_seq: view.seq });
  };
  $("pass").onclick = function () { post("/actions", { pass: true, expect_seq: view.seq }); };
  $("start").onclick = function () { post("/start", {}); };
  $("undo").onclick = function () { var seq = view.seq; B.askUndo(view, gameId, function () { post("/undo", { expect_seq: seq }); }); };
  $("join").onsubmit = function (ev) {
    ev.preventDefault();
    var name = $("join-name").value.trim();
    if (!joinColor) { say(tr("pick_color_first")); return; }
    if (!name) return;
    post("/seats/" + joinColor, { name: name }).then(function (res) {
      if (res && res.ok) { $("join-name").value = ""; sock.reopen(); }
      refresh();
    });
  };
  $("cards-form").onsubmit = function (ev) {
    ev.preventDefault();
    var body = { area: $("card-area").value || null, neighborhood: view.mode === "expert" ? ($("card-nb").value || null) : null };
    post("/seats/" + view.you.color + "/cards", body).then(function (res) { if (res && res.ok) { say(tr("cards_ready"), true); refresh(); } });
  };
  $("show-cards").onclick = function () {
    var body = $("cards-body");
    body.textContent = "";
    M.cardMeaning(view.mode, view.you.area, view.you.neighborhood).forEach(function (m) {
      var card = M.el("div", "card");
      card.appendChild(M.el("h3", "", m.title));
      card.appendChild(M.el("p", "", m.text));
      body.appendChild(card);
    });
    M.show($("cards-overlay"), true);
  };
  $("sound").checked = G.soundOn();
  $("sound").onchange = function () { G.setSound($("sound").checked); if ($("sound").checked) { G.wakeAudio(); G.tone(); } };
  $("hints").checked = hintsOn();
  $("hints").onchange = function () { setHints($("hints").checked); render(); };
  $("hints-off").onclick = function () { setHints(false); $("hints").checked = false; render(); };
  $("hide-cards").onclick = function () { M.show($("cards-overlay"), false); };

  /* A fresh GET after seat changes: the socket view of a device that just sat down may lag one message. */
  function refresh() {
    return M.api("GET", "/api/games/" + encodeURIComponent(gameId)).then(function (res) {
      if (res.ok) take(res.data);
      else if (res.status === 404) say(M.errorOf(res));
    });
  }

  // The socket brings the first view (socket.js opened it from the head). A plain GET only when it has not come
  // soon (a network that lets no WebSocket through): asked for at once as well, it drew the page twice on a slow phone.
  setTimeout(function () { if (!view) refresh(); }, 1500);
  var sock = M.live(gameId, take, function (on) {
    online = on;
    M.connBadge(on);
    soon();
  });
  return { get view() { return view; }, get online() { return online; }, sock: sock,
    gameId: gameId, post: post, refresh: refresh, say: say, onRender: function (f) { hooks.push(f); if (view) f(view, online, busy); } };   // its own part, not the page again
})();
evening(phone);
Review.onPhone(phone);
export { phone };
