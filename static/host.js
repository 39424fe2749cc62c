/* The host's setup: seats in order, districts out, tokens random or laid by hand, then create the game. */
import { M } from "./app.js";
(function () {
  var $ = M.$, tr = M.tr, term = M.term;
  var R = JSON.parse($("rules").textContent);
  var map = new M.Map($("map"));
  var tokens = {};
  var saved = [];
  var CYCLE = [null].concat(R.token_kinds);

  function checked(name) {
    return Array.prototype.slice.call(document.querySelectorAll("input[name=" + name + "]:checked")).map(function (i) { return i.value; });
  }
  function radio(name) { var r = document.querySelector("input[name=" + name + "]:checked"); return r ? r.value : null; }
  function players() {
    return Array.prototype.slice.call(document.querySelectorAll("#seats .seat-row")).filter(function (li) {
      return li.querySelector("input").checked;
    }).map(function (li) { return li.getAttribute("data-color"); });
  }
  /* "Play against the Pi": the first one or two colours ticked are the people's, the Pi plays the rest (0: people
     play every colour). */
  function people() { return +(radio("people") || 0); }
  function piColors() { return people() ? players().slice(people()) : []; }
  function vsPi() {
    var n = people(), pis = piColors(), level = $("pi-level").value;
    M.show($("vs-pi-more"), n > 0);
    Array.prototype.forEach.call(document.querySelectorAll("#seats .seat-row"), function (li) {
      li.classList.toggle("pi-seat", pis.indexOf(li.getAttribute("data-color")) >= 0);
    });
    if (!n) return;
    $("vs-pi-seats").textContent = pis.length ? tr("vs_pi_seats", {
      people: players().slice(0, n).map(function (c) { return M.cap(term(c)); }).join(", "),
      pis: pis.map(function (c) { return M.nameOf({ color: c, pi: level }); }).join(", ") }) : tr("vs_pi_more");
  }
  /* Against the Pi with too few colours ticked: the next colours in seat order are ticked for it. */
  function enoughForPi() {
    var rows = document.querySelectorAll("#seats .seat-row input");
    for (var i = 0; i < rows.length && people() && players().length <= people(); i++) rows[i].checked = true;
  }
  function adjacent(a, b) {
    return R.pairs.some(function (p) { return (p[0] === a && p[1] === b) || (p[0] === b && p[1] === a); });
  }

  function removedBoxes() {
    var n = players().length, need = Math.max(0, 4 - n);
    $("removed-hint").textContent = n >= 2 && n <= 4 ? tr("removed_" + n) : "";
    var boxes = document.querySelectorAll("#removed input");
    var on = checked("removed");
    while (on.length > need) {
      var drop = on.pop();
      document.querySelector("#removed input[value=" + drop + "]").checked = false;
    }
    for (var i = 0; i < boxes.length; i++) {
      var b = boxes[i];
      var ok = b.checked || need === 1 || (on.length < need && (need !== 2 || on.length === 0 || adjacent(on[0], b.value)));
      b.disabled = !ok;
      b.parentNode.classList.toggle("disabled", !ok);
    }
  }

  function inPlay(nb) {
    var removed = checked("removed");
    for (var d in R.districts) if (R.districts[d].indexOf(nb) >= 0) return removed.indexOf(d) < 0;
    return false;
  }
  function districtOf(nb) { for (var d in R.districts) if (R.districts[d].indexOf(nb) >= 0) return d; return null; }

  function counts() {
    var n = players().length, removed = checked("removed");
    var box = $("counts");
    box.textContent = "";
    for (var nb in tokens) if (!inPlay(nb)) delete tokens[nb];
    map.paint({ tokens: tokens, removed_districts: removed });
    map.list($("layout-list"), tokens, removed);
    if (n < 2 || n > 4) return false;
    var need = R.token_counts[String(n)], perKind = {}, perDistrict = {}, good = true;
    for (nb in tokens) {
      perKind[tokens[nb]] = (perKind[tokens[nb]] || 0) + 1;
      var d = districtOf(nb);
      perDistrict[d] = (perDistrict[d] || 0) + 1;
    }
    var lines = R.token_kinds.map(function (k) { return [term(k), perKind[k] || 0, need[k]]; });
    [R.center].concat(R.peripheral).forEach(function (d) {
      if (removed.indexOf(d) < 0) lines.push([M.cap(term(d)), perDistrict[d] || 0, R.district_tokens[d]]);
    });
    lines.forEach(function (l) {
      var ok = l[1] === l[2];
      good = good && ok;
      box.appendChild(M.el("span", "count " + (ok ? "ok" : "bad"), tr("count_of", { what: l[0], got: l[1], need: l[2] })));
    });
    box.appendChild(M.el("p", good ? "good" : "bad", tr(good ? "layout_ok" : "layout_bad")));
    return good;
  }

  function refresh() {
    vsPi();
    removedBoxes();
    M.show($("hand"), radio("layout") === "hand");
    counts();
  }

  map.onTap(function (nb) {
    if (radio("layout") !== "hand" || R.blind.indexOf(nb) >= 0 || !inPlay(nb)) return;
    var next = CYCLE[(CYCLE.indexOf(tokens[nb] || null) + 1) % CYCLE.length];
    if (next) tokens[nb] = next; else delete tokens[nb];
    counts();
  });

  $("seats").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-move]");
    if (!b) return;
    var li = b.closest("li"), step = +b.getAttribute("data-move");
    if (step < 0 && li.previousElementSibling) li.parentNode.insertBefore(li, li.previousElementSibling);
    if (step > 0 && li.nextElementSibling) li.parentNode.insertBefore(li.nextElementSibling, li);
    vsPi();
  });
  $("setup").addEventListener("change", refresh);
  $("clear").onclick = function () { tokens = {}; counts(); };

  /* Saved layouts: the list holds names only; a layout's tokens are fetched when it is loaded. */
  function loadSaved() {
    M.api("GET", "/api/layouts").then(function (res) {
      if (!res.ok || !Array.isArray(res.data)) return;
      saved = res.data.filter(function (l) { return l && typeof l.name === "string"; });
      var sel = $("saved");
      sel.textContent = "";
      saved.forEach(function (l, i) { var o = M.el("option", "", l.name); o.value = i; sel.appendChild(o); });
    });
  }
  $("load").onclick = function () {
    var l = saved[+$("saved").value];
    if (!l) return;
    M.api("GET", "/api/layouts?name=" + encodeURIComponent(l.name)).then(function (res) {
      if (!res.ok || !res.data || typeof res.data.tokens !== "object") {
        $("msg").textContent = M.errorOf(res);
        $("msg").className = "msg";
        return;
      }
      // A saved layout is for the districts it leaves empty: those go out of play with it.
      var out = Array.isArray(res.data.removed_districts) ? res.data.removed_districts : [];
      if (res.data.players === players().length) {
        var boxes = document.querySelectorAll("#removed input");
        for (var i = 0; i < boxes.length; i++) boxes[i].checked = out.indexOf(boxes[i].value) >= 0;
        removedBoxes();
      }
      tokens = {};
      for (var nb in res.data.tokens) {
        if (R.token_kinds.indexOf(res.data.tokens[nb]) >= 0 && districtOf(nb)) tokens[nb] = res.data.tokens[nb];
      }
      counts();
    });
  };
  $("save").onclick = function () {
    var name = $("layout-name").value.trim();
    if (!name) { $("layout-name").focus(); return; }
    M.api("POST", "/api/layouts", { name: name, tokens: tokens }).then(function (res) {
      $("msg").textContent = res.ok ? tr("saved") : M.errorOf(res);
      $("msg").className = "msg" + (res.ok ? " good" : "");
      if (res.ok) loadSaved();
    });
  };

  $("setup").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = {
      mode: radio("mode"), players: players(), removed_districts: checked("removed"),
      layout: radio("layout") === "hand" ? { tokens: tokens } : "random", deal: radio("deal")
    };
    if ($("hints-allow").checked) body.hints = true;   // "What would the Pi do?" (review.js)
    // A game in progress on the table: its host is told it stops being shown; anyone else that it stays.
    if (current && (current.phase === "playing" || current.phase === "lobby") &&
        current.players.some(function (p) { return p.seated; }) &&
        !window.confirm(tr(current.host ? "replace_confirm" : "not_shown_warn", { game: current.id }))) return;
    var pis = piColors(), level = $("pi-level").value;
    if (people() && !pis.length) { $("msg").textContent = tr("vs_pi_more"); $("msg").className = "msg"; return; }
    remember(body);
    $("create").disabled = true;
    M.api("POST", "/api/games", body).then(function (res) {
      if (res.ok && res.data && res.data.id) return seatPi(res.data.id, pis, level);
      $("create").disabled = false;
      $("msg").textContent = M.errorOf(res);
      $("msg").className = "msg";
    });
  });
  /* The Pi's seats given one after another, as the lobby gives them (POST .../seats/<colour>/pi); then the lobby. */
  function seatPi(gid, pis, level) {
    var go = function () { location.href = "/g/" + encodeURIComponent(gid); };
    if (!pis.length) return go();
    M.api("POST", "/api/games/" + encodeURIComponent(gid) + "/seats/" + pis[0] + "/pi", { level: level }).then(function (res) {
      if (res.ok) return seatPi(gid, pis.slice(1), level);
      $("create").disabled = false;
      $("msg").textContent = M.errorOf(res);   // the lobby can still give the seat: the game is made
      $("msg").className = "msg";
      setTimeout(go, 3000);
    });
  }

  /* The LEDs beside the board: what the Pi has, and each LED in turn to check the wiring. */
  function ledStatus(res) {
    var hw = res.data || {};
    var pins = Object.keys(hw.pins || {}).map(function (c) { return term(c) + " " + hw.pins[c]; }).join(", ");
    $("leds-status").textContent = hw.gpio === "none" ? tr("leds_none") : tr("leds_" + hw.gpio, { pins: pins });
    $("leds-test").disabled = hw.gpio === "none";
  }
  M.api("GET", "/api/hardware").then(ledStatus);
  $("leds-test").onclick = function () {
    M.api("POST", "/api/hardware/test", {}).then(function (res) {
      if (res.ok) ledStatus(res); else $("leds-status").textContent = M.errorOf(res);
    });
  };

  /* The front door: the game on the table first (join or watch), a new game second. */
  var current = null;
  function frontDoor() {
    M.api("GET", "/api/games/current").then(function (res) {
      current = res.ok && res.data && res.data.id ? res.data : null;
      var on = !!current && (current.phase === "playing" || current.phase === "lobby");
      M.show($("front"), on);
      $("setup-title").textContent = tr(on ? "front_new" : "setup_title");
      if (!on) return;
      $("front-title").textContent = tr("front_current", { game: current.id });
      var ul = $("front-players");
      ul.textContent = "";
      current.players.forEach(function (p) {
        var li = M.el("li", "prow");
        li.appendChild(M.chip(p.color));
        li.appendChild(M.el("span", "grow" + (p.name ? "" : " free"), " " + (p.pi ? M.nameOf(p) : M.cap(term(p.color)) + " – " + (p.name || tr("seat_free")))));
        ul.appendChild(li);
      });
      $("front-join").href = "/g/" + encodeURIComponent(current.id);
    });
  }

  /* The form remembers the last game's choices; a count of players always comes with legal districts out. */
  var KEY = "metropolys-setup";
  function remember(body) {
    try {
      localStorage.setItem(KEY, JSON.stringify({ mode: body.mode, players: body.players, removed: body.removed_districts,
        deal: body.deal, layout: radio("layout"), people: String(people()), level: $("pi-level").value }));
    } catch (e) { /* private mode: nothing remembered */ }
  }
  function restore() {
    var last = null;
    try { last = JSON.parse(localStorage.getItem(KEY) || "null"); } catch (e) { last = null; }
    if (!last || !Array.isArray(last.players)) return;
    var list = $("seats");
    last.players.slice().reverse().forEach(function (c) {
      var li = list.querySelector('.seat-row[data-color="' + c + '"]');
      if (li) list.insertBefore(li, list.firstChild);
    });
    Array.prototype.forEach.call(document.querySelectorAll("#seats input"), function (i) { i.checked = last.players.indexOf(i.value) >= 0; });
    Array.prototype.forEach.call(document.querySelectorAll("#removed input"), function (i) { i.checked = (last.removed || []).indexOf(i.value) >= 0; });
    if (M.S.levels.indexOf(last.level) >= 0) $("pi-level").value = last.level;
    ["mode", "deal", "layout", "people"].forEach(function (name) {
      var r = document.querySelector("input[name=" + name + "][value=" + (last[name] || "x") + "]");
      if (r) r.checked = true;
    });
  }
  var lastCount = null;
  function legalDistricts() {
    var n = players().length, need = Math.max(0, 4 - n), on = checked("removed");
    if (n === lastCount && on.length === need) return;
    lastCount = n;
    var boxes = Array.prototype.slice.call(document.querySelectorAll("#removed input"));
    if (on.length === need) return;
    boxes.forEach(function (b) { b.checked = false; });
    if (need === 1) boxes[0].checked = true;
    if (need === 2) {
      for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++)
        if (adjacent(boxes[i].value, boxes[j].value) && !checked("removed").length) { boxes[i].checked = true; boxes[j].checked = true; }
    }
  }
  $("seats").addEventListener("change", function () { legalDistricts(); refresh(); });
  $("vs-pi").addEventListener("change", function () { enoughForPi(); legalDistricts(); refresh(); });
  /* With three players one district is out: ticking another moves the choice there. */
  $("removed").addEventListener("change", function (ev) {
    if (!ev.target.checked || Math.max(0, 4 - players().length) !== 1) return;
    Array.prototype.forEach.call(document.querySelectorAll("#removed input"), function (b) { if (b !== ev.target) b.checked = false; });
  });

  restore();
  legalDistricts();
  refresh();
  loadSaved();
  frontDoor();
})();
