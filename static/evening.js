/* The phone's part of a whole evening: seats moved to new phones, the host role, acting for an absent
   player, rematch, abandon, and what every screen is told. Text and DOM nodes only, never HTML strings. */
import { M } from "./app.js";
import { G } from "./glance.js";
/* P: the phone's part (phone.js), which starts this one once it is set up. */
function evening(P) {
  var $ = M.$, tr = M.tr, term = M.term, el = M.el;
  var codeColor = null;

  function colorName(c) { return M.cap(term(c)); }
  function btn(text, cls, onclick) {
    var b = el("button", "btn " + (cls || ""), text);
    b.type = "button";
    b.onclick = onclick;
    return b;
  }
  function send(path, body) { return P.post(path, body || {}); }

  function notice(view) {
    var n = view.notice, box = $("notice");
    var recent = !!n && view.seq - n.seq < 6;
    M.show(box, recent);
    if (recent) box.textContent = M.sayOf(view, n.key, n.color, { other: n.other ? M.who(view, n.other) : "", game: n.game || "" });
  }

  /* A seat moving to a new phone with the table's confirmation: every screen says so; its own phone may cancel. */
  function seatMove(view) {
    var m = view.seat_move, me = view.you && view.you.color;
    M.show($("seat-move"), !!m);
    if (!m) return;
    var mine = view.seat_move_mine === m.color;
    $("seat-move-text").textContent = m.stage === "moving" ? M.sayOf(view, "seat_move_title", m.color) +
      (mine ? ". " + tr("seat_move_wait") : "") : M.sayOf(view, "seat_move_asked", m.color);
    M.show($("seat-move-cancel"), me === m.color || mine);
  }

  function movedOn(view) {
    // A rematch: every phone goes to the new lobby, where it already holds its seat.
    if (view.next_game && !movedOn.done) {
      movedOn.done = true;
      location.assign("/g/" + encodeURIComponent(view.next_game));
    }
  }

  function ended(view) {
    var gone = view.phase === "abandoned";
    M.show($("abandoned"), gone && !!view.start_player);   // a lobby abandoned has no record: no empty box
    if (gone) {
      var a = $("abandoned-record");
      M.show(a, !!view.start_player);
      a.href = "/api/games/" + encodeURIComponent(view.id) + "/record";
      a.setAttribute("download", "metropolys-" + view.id + ".json");
    }
    M.show($("rematch"), !!view.host && !view.next_game && (view.phase === "finished" || gone));
  }

  function claim(view) {
    // Each claimer types its own code: another player's claim never hides this one's.
    var me = view.you && view.you.color, claims = view.host_claims || [], open = view.phase === "lobby" || view.phase === "playing";
    var mine = !!me && claims.indexOf(me) >= 0, other = claims.filter(function (c) { return c !== me; })[0];
    var canClaim = open && !!me && !view.host && view.host_away && !mine;
    M.show($("claim"), open && (canClaim || claims.length > 0));
    M.show($("claim-host"), canClaim);
    M.show($("approve-host"), !!other && !!me);
    M.show($("claim-code-form"), mine);
    $("claim-text").textContent = claims.map(function (c) { return M.sayOf(view, "host_claimed", c); }).join(" ");
    claim.other = other;
  }

  var codeOpen = false;   /* the watcher tapped "Take a seat with a code" */
  function codeForm(view) {
    var offer = !view.you && view.phase !== "abandoned" && view.phase !== "finished" &&
      (view.phase !== "lobby" || view.players.every(function (p) { return p.name; }));
    var show = offer && codeOpen;
    M.show($("code-open"), offer && !codeOpen);
    M.show($("code-form"), show);
    if (!offer) codeOpen = false;
    if (!show) return;
    var box = $("code-colors");
    box.textContent = "";
    view.players.forEach(function (p) {
      var b = btn(" " + colorName(p.color), "colorpick" + (p.color === codeColor ? " on" : ""), function () { codeColor = p.color; codeForm(view); });
      b.insertBefore(M.chip(p.color), b.firstChild);
      b.setAttribute("aria-pressed", p.color === codeColor ? "true" : "false");
      box.appendChild(b);
    });
    var chosen = view.players.filter(function (p) { return p.color === codeColor; })[0];
    M.show($("code-name"), !!chosen && !chosen.name);
    // A seat whose phone has been gone a while: this phone may ask the table display for it.
    var asked = !!chosen && view.seat_move_mine === chosen.color;
    var left = seatHint(view, chosen, asked);
    M.show($("rescue-ask"), !!chosen && (!!chosen.gone || left === 0) && !asked);
    M.show($("rescue-hint"), asked);
    var moving = !!view.seat_move && view.seat_move.stage === "moving" && view.seat_move.color === chosen.color;
    $("rescue-hint").textContent = !asked ? "" : moving ? tr("seat_move_wait") :
      view.seat_move_ask ? tr("rescue_hint_ask", { ask: view.seat_move_ask }) : tr("rescue_hint");
  }

  /* A taken seat picked: said at once where its code comes from, and (its phone offline) when this phone may ask
     the table for it, counted down; returns the seconds left (-1: not offline). */
  var hintTimer = null;
  function seatHint(view, chosen, asked) {
    var node = $("seat-hint");
    var taken = !!chosen && chosen.seated && !chosen.pi && view.phase === "playing" && !asked;
    var left = chosen ? G.seatLeft(view, chosen.color) : -1;
    var name = chosen ? M.who(view, chosen.color) : "";
    var time = Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2);
    node.textContent = !taken ? "" : left < 0 ? tr("pick_seat_live", { name: name }) :
      left > 0 ? tr("pick_seat_wait", { name: name, time: time }) : tr("pick_seat_now", { name: name });
    M.show(node, taken);
    clearTimeout(hintTimer);
    if (taken && left > 0) hintTimer = setTimeout(function () { if (P.view === view && codeOpen) codeForm(view); }, 1000);
    return left;
  }

  /* The seat the game waits for has no phone: every phone counts down until a new phone may ask for it. */
  function seatGone(view) {
    var c = view.phase === "playing" && view.to_act;
    var away = !!c && !(view.you && view.you.color === c) && G.seatLeft(view, c) >= 0 && !view.seat_move;
    if (away) G.seatCountdown($("seat-gone"), view, c);
    else M.show($("seat-gone"), false);
  }

  function displayForm(view) {
    M.show($("display-form"), !view.you && !view.host && !view.table_display);
  }

  function seatTools(view) {
    var me = view.you && view.you.color;
    M.show($("seat-tools"), !!me && (view.phase === "lobby" || view.phase === "playing"));
    var code = me && view.move_codes && view.move_codes[me];
    var box = $("move-code");
    M.show(box, !!code);
    box.textContent = "";
    if (code) {
      box.appendChild(el("span", "", M.sayOf(view, "move_code_is", me, { code: code })));
      box.appendChild(el("b", "code big", code));
    }
  }

  function hostTools(view, online, busy) {
    if (!view.host || !(view.phase === "playing" || view.phase === "finished")) return;
    var offline = view.offline || [];
    var absent = view.phase === "playing" && view.to_act &&
      view.players.some(function (p) { return p.color === view.to_act && (!p.seated || offline.indexOf(p.color) >= 0); });
    var pf = $("pass-for");
    M.show(pf, !!absent);
    if (absent) pf.textContent = M.sayOf(view, "pass_for", view.to_act);
    pf.disabled = !online || busy;
    var ul = $("host-seats");
    ul.textContent = "";
    view.players.forEach(function (p) {
      var li = el("li", "prow wrap");
      li.appendChild(M.chip(p.color));
      var gone = !p.seated || offline.indexOf(p.color) >= 0;
      var label = (M.nameOf(p) || tr("seat_free")) + (p.color === view.host_color ? " (" + tr("host_mark") + ")" : "") +
        (p.seated && gone ? " – " + tr("offline_mark") : "");
      var span = el("span", "grow", " " + label);
      var code = view.move_codes && view.move_codes[p.color];
      if (code) span.appendChild(el("span", "code", " " + M.sayOf(view, "move_code_is", p.color, { code: code })));
      li.appendChild(span);
      if (view.phase === "playing") {
        // No seat powers: a seat moves only from its own phone, or with the table display's confirmation.
        if (p.seated && !gone && !p.pi && p.color !== view.host_color) li.appendChild(btn(tr("make_host"), "small", function () {
          if (window.confirm(tr("make_host_confirm", { player: M.who(view, p.color) }))) send("/host", { color: p.color });
        }));
      }
      ul.appendChild(li);
    });
    M.show($("abandon"), view.phase === "playing");
  }

  P.onRender(function (view, online, busy) {
    notice(view);
    seatMove(view);
    displayForm(view);
    movedOn(view);
    ended(view);
    claim(view);
    codeForm(view);
    seatGone(view);
    seatTools(view);
    hostTools(view, online, busy);
  });

  $("move-seat").onclick = function () { send("/seats/" + P.view.you.color + "/code"); };
  $("pass-for").onclick = function () { send("/pass-for", { expect_seq: P.view.seq }); };
  $("abandon").onclick = function () {
    if (window.confirm(tr("abandon_confirm", { game: P.view.id }))) send("/abandon", { confirm: P.view.id });
  };
  $("abandon-lobby").onclick = function () {
    if (window.confirm(tr("abandon_lobby_confirm", { game: P.view.id }))) send("/abandon", { confirm: P.view.id });
  };
  $("code-open").onclick = function () {
    codeOpen = true;
    $("code-open").setAttribute("aria-expanded", "true");
    codeForm(P.view);
  };
  $("rematch-rotate").onclick = function () { send("/rematch", { rotate: true }); };
  $("rematch-keep").onclick = function () { send("/rematch", { rotate: false }); };
  $("claim-host").onclick = function () { send("/host/claim"); };
  $("approve-host").onclick = function () { send("/host/approve", { color: claim.other }); };
  $("claim-code-form").onsubmit = function (ev) {
    ev.preventDefault();
    send("/host/claim", { code: $("claim-code").value.trim() }).then(function (res) { if (res && res.ok) $("claim-code").value = ""; });
  };
  $("code-form").onsubmit = function (ev) {
    ev.preventDefault();
    if (!codeColor) { P.say(tr("pick_color_first")); return; }
    var body = { code: $("code-value").value.trim() };
    var name = $("code-name").value.trim();
    if (name) body.name = name;
    // The code the table display shows (a seat asked for here), or the code the seat's own phone shows.
    var table = P.view.seat_move_mine === codeColor;
    if (table) delete body.name;
    send("/seats/" + codeColor + (table ? "/rescue" : "/move"), body).then(function (res) {
      if (res && res.ok) { $("code-value").value = ""; P.sock.reopen(); P.refresh(); }
    });
  };
  $("rescue-ask").onclick = function () { if (codeColor) send("/seats/" + codeColor + "/rescue"); };
  $("seat-move-cancel").onclick = function () { send("/seats/" + P.view.seat_move.color + "/rescue/cancel"); };
  $("display-claim").onsubmit = function (ev) {
    ev.preventDefault();
    M.api("POST", "/api/table/claim", { code: $("display-code").value.trim() }).then(function (res) {
      if (res.ok) location.assign("/table");
      else P.say(M.errorOf(res));
    });
  };
}
export { evening };
