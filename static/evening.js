/* The phone's part of a whole evening: seats moved to new phones, the host role, acting for an absent
   player, rematch, abandon, and what every screen is told. Text and DOM nodes only, never HTML strings. */
"use strict";
(function () {
  var $ = M.$, tr = M.tr, term = M.term, el = M.el;
  var P = window.__phone;
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
    if (recent) box.textContent = tr(n.key, { color: n.color ? colorName(n.color) : "", game: n.game || "" });
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
    M.show($("abandoned"), gone);
    if (gone) {
      var a = $("abandoned-record");
      M.show(a, !!view.start_player);
      a.href = "/api/games/" + encodeURIComponent(view.id) + "/record";
      a.setAttribute("download", "metropolys-" + view.id + ".json");
    }
    M.show($("rematch"), !!view.host && !view.next_game && (view.phase === "finished" || gone));
  }

  function claim(view) {
    var me = view.you && view.you.color, c = view.host_claim, open = view.phase === "lobby" || view.phase === "playing";
    var canClaim = open && !!me && !view.host && view.host_away && !c;
    M.show($("claim"), open && (canClaim || !!c));
    M.show($("claim-host"), canClaim);
    M.show($("approve-host"), !!c && !!me && c.color !== me);
    M.show($("claim-code-form"), !!c && c.color === me);
    $("claim-text").textContent = c ? tr("host_claimed", { color: colorName(c.color) }) : "";
  }

  function codeForm(view) {
    var show = !view.you && view.phase !== "abandoned" && view.phase !== "finished" &&
      (view.phase !== "lobby" || view.players.every(function (p) { return p.name; }));
    M.show($("code-form"), show);
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
  }

  function seatTools(view) {
    var me = view.you && view.you.color;
    M.show($("seat-tools"), !!me && (view.phase === "lobby" || view.phase === "playing"));
    var code = me && view.move_codes && view.move_codes[me];
    var box = $("move-code");
    M.show(box, !!code);
    box.textContent = "";
    if (code) {
      box.appendChild(el("span", "", tr("move_code_is", { color: colorName(me), code: code })));
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
    if (absent) pf.textContent = tr("pass_for", { color: M.who(view, view.to_act) });
    pf.disabled = !online || busy;
    var ul = $("host-seats");
    ul.textContent = "";
    view.players.forEach(function (p) {
      var li = el("li", "prow wrap");
      li.appendChild(M.chip(p.color));
      var gone = !p.seated || offline.indexOf(p.color) >= 0;
      var label = (p.name || tr("seat_free")) + (p.color === view.host_color ? " (" + tr("host_mark") + ")" : "") +
        (p.seated && gone ? " – " + tr("offline_mark") : "");
      var span = el("span", "grow", " " + label);
      var code = view.move_codes && view.move_codes[p.color];
      if (code) span.appendChild(el("span", "code", " " + tr("move_code_is", { color: colorName(p.color), code: code })));
      li.appendChild(span);
      if (view.phase === "playing") {
        if (p.seated && !gone && p.color !== view.host_color) li.appendChild(btn(tr("make_host"), "small", function () {
          if (window.confirm(tr("make_host_confirm", { player: M.who(view, p.color) }))) send("/host", { color: p.color });
        }));
        if (gone) li.appendChild(btn(tr("give_seat"), "small", function () { send("/seats/" + p.color + "/code"); }));
        else if (p.color !== (view.you && view.you.color)) li.appendChild(btn(tr("free_seat"), "small", function () {
          if (window.confirm(tr("free_seat") + ": " + M.who(view, p.color) + "?")) send("/seats/" + p.color + "/release");
        }));
      }
      ul.appendChild(li);
    });
    M.show($("abandon"), view.phase === "playing");
  }

  P.onRender(function (view, online, busy) {
    notice(view);
    movedOn(view);
    ended(view);
    claim(view);
    codeForm(view);
    seatTools(view);
    hostTools(view, online, busy);
  });

  $("move-seat").onclick = function () { send("/seats/" + P.view.you.color + "/code"); };
  $("pass-for").onclick = function () { send("/pass-for", { expect_seq: P.view.seq }); };
  $("abandon").onclick = function () {
    if (window.confirm(tr("abandon_confirm", { game: P.view.id }))) send("/abandon", { confirm: P.view.id });
  };
  $("rematch-rotate").onclick = function () { send("/rematch", { rotate: true }); };
  $("rematch-keep").onclick = function () { send("/rematch", { rotate: false }); };
  $("claim-host").onclick = function () { send("/host/claim"); };
  $("approve-host").onclick = function () { send("/host/approve", { color: P.view.host_claim.color }); };
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
    send("/seats/" + codeColor + "/move", body).then(function (res) {
      if (res && res.ok) { $("code-value").value = ""; P.sock.reopen(); P.refresh(); }
    });
  };
})();
