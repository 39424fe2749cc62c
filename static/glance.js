/* At a glance, on every screen: how the last call ended and what to do on the real board, what undo took back,
   the short log, a refused tap's rule sentence, and the cues that say it is your turn. DOM nodes and text only. */
import { M } from "./app.js";
var G = (function () {
  var tr = M.tr, term = M.term, el = M.el, who = M.who;

  function sentence(text) {
    text = String(text).trim();
    if (!text) return text;
    text = text.charAt(0).toUpperCase() + text.slice(1);
    return /[.!?]$/.test(text) ? text : text + ".";
  }
  /* A rule's sentence in the page's language, as the server would say it (never asked of it). */
  function rule(view, code, params) {
    var p = {};
    for (var k in params) p[k] = params[k];
    // On the player's own phone the sentence speaks to them: "You cannot ...", not "Hana (Blue) cannot ...".
    var yours = view.you && p.player === view.you.color && M.S.ui["you_" + code];
    if (yours && p.owner === p.player && M.S.ui["you_" + code + "_own"]) yours = M.S.ui["you_" + code + "_own"];
    ["player", "to_act", "owner"].forEach(function (k) { if (p[k]) p[k] = who(view, p[k]); });
    if (p.district) p.district = term(p.district);
    var text = yours || (M.S.rules || {})[code] || code;
    return sentence(text.replace(/\{(\w+)\}/g, function (m, k) { return p[k] !== undefined ? p[k] : m; }));
  }

  /* The pairs a lake lies between ("C04 C09"), from the board data the server's rule check reads too. */
  var water = {};
  (function () {
    var node = document.getElementById("water");
    (node ? JSON.parse(node.textContent) : []).forEach(function (pair) { water[pair] = true; });
  })();
  function acrossWater(a, b) { return !!water[a < b ? a + " " + b : b + " " + a]; }

  /* Why this neighborhood may not be bid on now by this phone's player, or null when it may. */
  function refusal(view, nb, district) {
    var me = view.you && view.you.color;
    if (!me) return null;
    if (view.phase === "finished") return rule(view, "game_over", { player: me });
    if (view.phase !== "playing") return null;
    if ((view.passed || []).indexOf(me) >= 0) return rule(view, "already_passed", { player: me });
    if (view.to_act !== me) return rule(view, "not_your_turn", { player: me, to_act: view.to_act });
    var legal = (view.legal && view.legal.neighborhoods) || {};
    if (legal[nb]) return null;
    if (district && (view.removed_districts || []).indexOf(district) >= 0)
      return rule(view, "district_removed", { player: me, neighborhood: nb, district: district });
    var built = (view.built || {})[nb];
    if (built) return rule(view, "already_built", { player: me, neighborhood: nb, owner: built.color });
    var call = view.call || [];
    for (var i = 0; i < call.length; i++)
      if (call[i].neighborhood === nb) return rule(view, "already_bid", { player: me, neighborhood: nb, owner: call[i].color });
    if (!call.length) return null;
    var last = call[call.length - 1].neighborhood;
    return rule(view, acrossWater(nb, last) ? "across_water" : "not_adjacent", { player: me, neighborhood: nb, last: last });
  }
  /* Why a value in my hand may not be bid: lower than the last bid. */
  function valueRefusal(view, v) {
    var call = view.call || [], last = call[call.length - 1];
    if (last && v <= last.value) return rule(view, "too_low", { player: view.you.color, value: v, last_value: last.value });
    return null;
  }

  function bidList(view, bids) {
    return bids.map(function (b) { return tr("bid_line", { player: who(view, b.color), value: b.value, nb: b.neighborhood }); }).join("; ");
  }
  function cardName(kind) { return tr("card_" + kind); }

  /* The physical steps after a call, in order: turn the winner over (and take the token), cards, the rest back. */
  function steps(view, c) {
    // The Pi's pieces are moved by someone at the table: "For the Pi (Blue): turn the blue 7 on C05 over."
    var out = [], winner = who(view, c.color), pi = M.isPi(view, c.color) ? "_pi" : "";
    if (!pi && view.you && view.you.color === c.color) pi = "_you";   // the winner's own phone: "Turn your 7 over"
    out.push(c.token ? tr("step_build_token" + pi, { player: winner, value: c.value, nb: c.neighborhood, token: term(c.token), color: term(c.color) })
                     : tr("step_build" + pi, { player: winner, value: c.value, nb: c.neighborhood, color: term(c.color) }));
    ["subway", "archaeological"].forEach(function (k) {
      if (!c[k + "_card"]) return;
      var from = c[k + "_from"];
      out.push(from ? tr("step_card" + pi, { player: winner, card: cardName(k), from: who(view, from) })
                    : tr("step_card_new" + pi, { player: winner, card: cardName(k) }));
    });
    // What goes back to hands comes from the server (companion/game/summary.py), the winner's own earlier bids included.
    var back = c.back || [];
    var own = back.filter(function (b) { return b.color === c.color; });
    var others = back.filter(function (b) { return b.color !== c.color; });
    if (own.length) out.push(tr("step_back_own" + pi, { player: winner, bids: own.map(function (b) {
      return tr("bid_own", { value: b.value, nb: b.neighborhood }); }).join("; ") }));
    if (others.length) out.push(tr("step_back", { bids: bidList(view, others) }));
    return out;
  }
  function callKey(c) { return c ? c.color + ":" + c.neighborhood + ":" + c.value : ""; }

  /* The card's call: the one just over; or, when the Pi opened the next call at once (it won the last one), that
     last one still, until the next decision: its pieces are moved by the people at the table, who need the steps. */
  function overCall(view) {
    if (view.call_over) return view.call_over;
    var log = view.log || [], l = log[log.length - 1], before = log[log.length - 2];
    if (!l || !before || !before.ended || view.undone || (view.call || []).length !== 1 || !M.isPi(view, l.color)) return null;
    return before.ended;
  }
  /* The call-over card: until the next bid, or until this screen's Done (onDone null: no button). */
  function callOver(node, view, dismissed, onDone) {
    var c = overCall(view);
    var on = !!c && view.phase !== "lobby" && dismissed !== callKey(c);
    M.show(node, on);
    node.textContent = "";
    if (!on) return;
    node.className = "box callover c-edge-" + c.color;
    node.appendChild(el("h2", "", tr("call_over")));
    var head = el("p", "big");
    head.appendChild(M.chip(c.color));
    head.appendChild(document.createTextNode(" " + M.cap(M.sayOf(view, "call_built", c.color, { value: c.value, nb: c.neighborhood }))));
    node.appendChild(head);
    node.appendChild(el("p", "reason", tr("reason_" + c.reason)));
    if ((c.passed || []).length)
      node.appendChild(el("p", "", tr("passed_list", { players: c.passed.map(function (x) { return who(view, x); }).join(", ") })));
    node.appendChild(el("h3", "", tr("steps")));
    var ol = el("ol", "steps");
    steps(view, c).forEach(function (s) { ol.appendChild(el("li", "", s)); });
    node.appendChild(ol);
    if (onDone) {
      var b = el("button", "btn", tr("done"));
      b.type = "button";
      b.id = "callover-done";
      b.onclick = function () { onDone(callKey(c)); };
      node.appendChild(b);
    }
  }

  /* What undo would take back (the confirm) and what it took back (every screen, until the next action). */
  function undoQuestion(view) {
    // Undo goes back to the last person's action (the Pi's moves since go with it).
    var people = (view.log || []).filter(function (l) { return !M.isPi(view, l.color); });
    var last = people[people.length - 1];
    if (!last) return tr("undo_confirm");
    var p = { player: who(view, last.color), value: last.value, nb: last.neighborhood };
    return tr(last.kind === "bid" ? "undo_confirm_bid" : "undo_confirm_pass", p);
  }
  function undoneLines(view) {
    var u = view.undone;
    if (!u) return [];
    if (!u.kind) return [tr("undone_other")];
    var out = [M.sayOf(view, u.kind === "bid" ? "undone_bid" : "undone_pass", u.color, { value: u.value, nb: u.neighborhood })];
    (u.also || []).forEach(function (a) {   // the Pi's moves taken back with it: its pieces come off the board too
      out.push(a.kind === "bid" ? M.sayOf(view, "undone_also", a.color, { value: a.value, nb: a.neighborhood, color: term(a.color) })
                                : M.sayOf(view, "undone_also_pass", a.color));
    });
    var e = u.ended;
    if (e) {
      if (u.kind === "pass") out.push(tr("undone_call", { value: e.value, nb: e.neighborhood }));
      if (e.token) out.push(tr("undone_token", { token: term(e.token), nb: e.neighborhood }));
      ["subway", "archaeological"].forEach(function (k) {
        if (!e[k + "_card"]) return;
        var from = e[k + "_from"];
        out.push(from ? tr("undone_card", { card: cardName(k), player: who(view, from) }) : tr("undone_card_none", { card: cardName(k) }));
      });
    }
    return out;
  }
  function undone(node, view) {
    var lines = undoneLines(view);
    M.show(node, lines.length > 0);
    node.textContent = "";
    lines.forEach(function (l) { node.appendChild(el("p", "", l)); });
  }

  /* The Pi's last move in the words of the board, until the next decision: "The Pi (Blue) bids 7 on C05: put a blue
     7 on C05." Someone at the table moves its pieces. */
  function piMove(node, view) {
    var log = view.log || [], l = log[log.length - 1];
    var on = !!l && view.phase !== "lobby" && M.isPi(view, l.color) && !view.undone;
    M.show(node, on);
    node.textContent = "";
    if (!on) return;
    node.className = "notice pimove c-edge-" + l.color;
    node.appendChild(M.chip(l.color));
    node.appendChild(document.createTextNode(" "));
    node.appendChild(el("span", "pmtext", M.cap(l.kind === "bid"
      ? tr("pi_bid", { player: who(view, l.color), value: l.value, nb: l.neighborhood, color: term(l.color) })
      : tr("pi_pass", { player: who(view, l.color) }))
      + (l.ended && l.ended.finished ? " " + M.cap(tr("last_building_over", { player: who(view, l.ended.color) })) : "")));
  }

  /* The short log, newest first: bids, passes (said and automatic), and each call's end. */
  function logLines(view, max) {
    var out = [];
    var log = view.log || [];
    for (var i = log.length - 1; i >= 0 && out.length < max; i--) {
      var l = log[i];
      if (l.ended) out.push({ color: l.ended.color, cls: "built", text: M.sayOf(view, "last_call", l.ended.color, { value: l.ended.value, nb: l.ended.neighborhood })
        + (l.ended.finished ? " " + M.sayOf(view, "last_building_over", l.ended.color) : "") });
      if ((l.auto || []).length) out.push({ color: null, cls: "auto", text: M.cap(tr("log_auto", { players: l.auto.map(function (c) { return who(view, c); }).join(", ") })) });
      out.push({ color: l.color, cls: l.kind, text: l.kind === "bid" ? M.sayOf(view, "log_bid", l.color, { value: l.value, nb: l.neighborhood })
                                                                    : M.sayOf(view, "log_pass", l.color) });
    }
    return out.slice(0, max);
  }
  function logList(node, view, max) {
    node.textContent = "";
    logLines(view, max).forEach(function (l) {
      var li = el("li", "log-" + l.cls);
      if (l.color) { li.appendChild(M.chip(l.color)); li.appendChild(document.createTextNode(" ")); }
      li.appendChild(document.createTextNode(l.text));
      node.appendChild(li);
    });
  }

  /* A host whose phone is gone, and when a player may take over: counted down on the screen each second. */
  var hostTimer = null;
  function hostLoss(view) {
    var c = view.host_color, wait = view.host_wait;
    if (!c || typeof wait !== "number" || (view.offline || []).indexOf(c) < 0) return "";
    if (!view._got) view._got = Date.now();   // counted from the moment this view arrived
    var left = Math.max(0, Math.ceil(wait - (Date.now() - view._got) / 1000));
    var name = who(view, c);
    if (!left || view.host_away) return tr("host_gone_now", { name: name });
    return tr("host_gone_in", { name: name, time: Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2) });
  }
  /* The countdown line in `node` (hidden when the host is here), kept ticking while it counts. */
  function hostCountdown(node, view) {
    clearTimeout(hostTimer);
    var text = hostLoss(view);
    node.textContent = text;
    M.show(node, !!text);
    if (text && view.host_wait && !view.host_away) hostTimer = setTimeout(function () { hostCountdown(node, view); }, 1000);
  }

  /* A seat whose phone is offline, and when a new phone may ask for it (view.seat_waits): counted down like the
     host's; a line that left the page stops ticking. */
  function seatLeft(view, color) {
    var wait = (view.seat_waits || {})[color];
    if (typeof wait !== "number") return -1;
    if (!view._got) view._got = Date.now();
    return Math.max(0, Math.ceil(wait - (Date.now() - view._got) / 1000));
  }
  function seatLoss(view, color) {
    var left = seatLeft(view, color);
    if (left < 0) return "";
    var name = who(view, color);
    if (!left) return tr("seat_gone_now", { name: name });
    return tr("seat_gone_in", { name: name, time: Math.floor(left / 60) + ":" + ("0" + left % 60).slice(-2) });
  }
  function seatCountdown(node, view, color) {
    var text = seatLoss(view, color);
    node.textContent = text;
    M.show(node, !!text);
    node._view = view;
    if (seatLeft(view, color) > 0) setTimeout(function () {
      if (node.isConnected && node._view === view) seatCountdown(node, view, color);
    }, 1000);
  }

  /* Your turn, felt: vibration (where the browser allows it), the page's title, an optional short tone. */
  var baseTitle = document.title, wasMine = false, audio = null;
  var SOUND = "metropolys-sound";
  function soundOn() { try { return localStorage.getItem(SOUND) === "1"; } catch (e) { return false; } }
  function setSound(on) { try { localStorage.setItem(SOUND, on ? "1" : "0"); } catch (e) { /* private mode */ } }
  /* Browsers start sound only from a tap: the context is made (or woken) at a tap, never later at a turn,
     and woken again at the next tap when a reload, Back or the back-forward cache left it suspended. */
  function wakeAudio() {
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!AC || !soundOn()) return;
    try {
      audio = audio || new AC();
      if (audio.state === "suspended" && audio.resume) audio.resume().catch(function () { /* next tap */ });
    } catch (e) { /* no sound here */ }
  }
  ["pointerdown", "keydown", "touchend"].forEach(function (t) { document.addEventListener(t, wakeAudio, true); });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted && audio && audio.state !== "running") audio.resume().catch(function () { /* next tap */ }); });
  function audioState() { return audio ? audio.state : "none"; }
  function tone() {
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return;
    try {
      if (!audio) return;   // made at the first tap (wakeAudio): a context made here would stay suspended
      if (audio.state === "suspended") audio.resume().catch(function () { /* next tap */ });
      var t = audio.currentTime, o = audio.createOscillator(), g = audio.createGain();
      o.type = "sine";
      o.frequency.setValueAtTime(660, t);
      o.frequency.setValueAtTime(880, t + 0.12);
      g.gain.setValueAtTime(0.0001, t);
      g.gain.exponentialRampToValueAtTime(0.3, t + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t + 0.3);
      o.connect(g); g.connect(audio.destination);
      o.start(t); o.stop(t + 0.32);
    } catch (e) { /* no sound: the title and vibration still say it */ }
  }
  function turnCue(mine) {
    document.title = mine ? tr("turn_title", { title: baseTitle }) : baseTitle;
    if (mine && !wasMine) {
      // Only once the page has been touched: before that a browser refuses it and says so in the console.
      var touched = !navigator.userActivation || navigator.userActivation.hasBeenActive;
      if (navigator.vibrate && touched) { try { navigator.vibrate([200, 100, 200]); } catch (e) { /* not allowed */ } }
      if (soundOn()) tone();
    }
    wasMine = mine;
  }

  return { overCall: overCall, piMove: piMove, refusal: refusal, valueRefusal: valueRefusal, callOver: callOver, steps: steps, callKey: callKey,
    undoQuestion: undoQuestion, undone: undone, logList: logList, turnCue: turnCue, soundOn: soundOn,
    setSound: setSound, tone: tone, wakeAudio: wakeAudio, audioState: audioState, hostLoss: hostLoss,
    hostCountdown: hostCountdown, seatLeft: seatLeft, seatLoss: seatLoss, seatCountdown: seatCountdown };
})();
export { G };
