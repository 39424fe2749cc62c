/* A finished game watched again, action by action (issue 41): the board as it stood, who did what, each call's end,
   everyone's secret cards and points, the chart and the awards. On its own page any phone replays alone; the host's
   phone may drive the table screen (POST /api/games/<id>/replay/show: the view's replay_step), which follows here too. */
import { M } from "./app.js";
import { Chart } from "./chart.js";
var Replay = (function () {
  var $ = M.$, el = M.el, tr = M.tr;
  var KINDS = ["trendy", "subway", "archaeological"];

  /* The replay's seats as a view's players, so M.who names them as every page does (the Pi by its level). */
  function people(data) {
    return { players: data.players.map(function (p) { return { color: p.color, name: p.name, pi: (data.pi || {})[p.color] }; }) };
  }
  function who(data, c) { return M.who(people(data), c); }

  /* The board after `k` steps (0: before the first bid), as a view the map paints: built, the call's bids, tokens. */
  function fold(data, k) {
    var built = {}, call = [], passed = {}, tokens = {}, sub = null, arch = null, held = {}, last = null;
    Object.keys(data.tokens).forEach(function (nb) { tokens[nb] = data.tokens[nb]; });
    data.players.forEach(function (p) { held[p.color] = { trendy: 0, subway: 0, archaeological: 0 }; });
    data.steps.slice(0, k).forEach(function (s) {
      if (s.written) return;
      if (s.action.bid) call.push({ neighborhood: s.action.bid, color: s.color, value: s.action.value });
      else passed[s.color] = true;
      (s.auto || []).forEach(function (c) { passed[c] = true; });
      var e = s.ended;
      if (e) {
        built[e.neighborhood] = { color: e.color, value: e.value };
        if (tokens[e.neighborhood]) { held[e.color][tokens[e.neighborhood]]++; delete tokens[e.neighborhood]; }
        sub = e.subway_card || sub;
        arch = e.archaeological_card || arch;
        call = []; passed = {}; last = e;
      }
    });
    var players = data.players.map(function (p) {
      var values = [], out = {};
      for (var v = 1; v <= 13; v++) out[v] = false;
      Object.keys(built).forEach(function (nb) { if (built[nb].color === p.color) out[built[nb].value] = true; });
      call.forEach(function (b) { if (b.color === p.color) out[b.value] = true; });
      for (v = 1; v <= 13; v++) if (!out[v]) values.push(v);
      return { color: p.color, name: p.name, pi: (data.pi || {})[p.color], values: values, tokens: held[p.color],
               buildings: Object.keys(built).filter(function (nb) { return built[nb].color === p.color; }).length };
    });
    return { mode: data.mode, removed_districts: data.removed_districts, tokens: tokens, built: built, call: call,
             passed: Object.keys(passed), subway_card: sub, archaeological_card: arch, players: players, last_call: last,
             scores: k ? data.steps[k - 1].scores : null };
  }

  /* What step `k` did, in the log's words: the bid or pass, who could not outbid, and the call's end. */
  function lines(data, k) {
    if (!k) return [tr("replay_start")];
    var s = data.steps[k - 1], out = [];
    out.push(M.cap(s.action.bid ? tr("log_bid", { player: who(data, s.color), value: s.action.value, nb: s.action.bid })
                                : tr("log_pass", { player: who(data, s.color) })));
    if ((s.auto || []).length) out.push(M.cap(tr("log_auto", { players: s.auto.map(function (c) { return who(data, c); }).join(", ") })));
    if (s.ended) out.push(M.cap(tr("last_call", { player: who(data, s.ended.color), value: s.ended.value, nb: s.ended.neighborhood })));
    return out;
  }

  /* The step's header and its lines, into `node`. */
  function caption(node, data, k) {
    node.textContent = "";
    var n = data.steps.length, s = data.steps[k - 1];
    node.appendChild(el("p", "rstep", (s ? tr("replay_call", { call: s.call }) + " · " : "") + tr("replay_step", { step: k, steps: n })));
    lines(data, k).forEach(function (t, i) {
      var p = el("p", i ? "rline more" : "rline");
      if (!i && s) { p.appendChild(M.chip(s.color)); p.appendChild(document.createTextNode(" ")); }
      p.appendChild(document.createTextNode(t));
      node.appendChild(p);
    });
  }

  /* Each seat at step `k`: points if the game ended here, hand, tokens, special cards, secret cards (the game is over). */
  function seats(node, data, k) {
    var v = fold(data, k);
    node.textContent = "";
    node.appendChild(el("p", "hint small", tr("replay_points")));
    v.players.forEach(function (p, i) {
      var info = data.players[i], box = node.appendChild(el("div", "rseat c-edge-" + p.color + (v.passed.indexOf(p.color) >= 0 ? " passed" : "")));
      box.setAttribute("data-color", p.color);
      var head = box.appendChild(el("div", "rhead"));
      head.appendChild(M.chip(p.color));
      head.appendChild(el("b", "rname", M.nameOf(p) || M.cap(M.term(p.color))));
      head.appendChild(el("span", "rpts", v.scores ? v.scores[p.color] : 0));
      var meta = box.appendChild(el("div", "rmeta"));
      meta.appendChild(el("span", "rvals", p.values.join(" ")));
      var bits = [tr("built_count") + " " + p.buildings];   // tokens by their kind's name, the cards held
      KINDS.forEach(function (t) { if (p.tokens[t]) bits.push(M.cap(M.term(t)) + " " + p.tokens[t]); });
      if (v.subway_card === p.color) bits.push(tr("card_subway"));
      if (v.archaeological_card === p.color) bits.push(tr("card_archaeological"));
      meta.appendChild(el("span", "rbits", bits.join(" · ")));
      var cards = [info.area, info.neighborhood].filter(Boolean).map(function (c) { return M.cap(M.term(c)); });
      if (cards.length) meta.appendChild(el("span", "rcards", cards.join(" · ")));
    });
  }

  function chart(data, k) {
    var box = el("figure", "rchart");
    box.appendChild(el("figcaption", "", tr("chart_title")));
    box.appendChild(Chart.draw(data, function (c, long) {
      return long ? tr("chart_lead", { player: who(data, c) }) : M.letter(c);
    }, k));
    var n = Chart.leads(Chart.calls(data), data.players.map(function (p) { return p.color; })).length;
    if (n) box.appendChild(el("p", "hint small", tr("chart_leads", { count: n })));
    return box;
  }

  function awards(data) {
    var box = el("div", "awards");
    if (!(data.awards || []).length) return box;
    box.appendChild(el("h3", "", tr("awards_title")));
    var ul = box.appendChild(el("ul", "awardlist"));
    data.awards.forEach(function (a) {
      var li = ul.appendChild(el("li", "award c-edge-" + a.colour));
      li.setAttribute("data-award", a.award);
      li.appendChild(el("b", "aname", tr("award_" + a.award)));
      li.appendChild(el("span", "avalue", tr("award_" + a.award + "_value", { count: a.value })));
      var p = li.appendChild(el("span", "awho"));
      p.appendChild(M.chip(a.colour));
      p.appendChild(document.createTextNode(" " + who(data, a.colour)));
    });
    return box;
  }

  var got = {};
  /* The replay of a game, asked for once per page (a finished game's replay never changes). */
  function load(id, then) {
    if (got[id] && got[id].data) return then(got[id].data);
    if (got[id]) { got[id].wait.push(then); return; }
    got[id] = { data: null, wait: [then] };
    M.api("GET", "/api/games/" + encodeURIComponent(id) + "/replay").then(function (res) {
      if (!res.ok) { delete got[id]; return; }
      got[id].data = res.data;
      got[id].wait.forEach(function (f) { f(res.data); });
    });
  }

  /* The table screen: while the host shows a step, the board as it stood then and a column that says it. Called at
     the end of each render (the real board was painted already: it is painted over). */
  function onTable(view, map) {
    var on = view.phase === "finished" && typeof view.replay_step === "number";
    var app = $("app"), side = document.querySelector(".tscreen .side"), box = $("replay-side");
    app.classList.toggle("replaying", on);
    if (!on) { if (box) box.hidden = true; return; }
    if (!box) {
      box = el("section", "box rside");
      box.id = "replay-side";
      side.insertBefore(box, side.firstChild);
    }
    box.hidden = false;
    ["end", "callover", "undone", "pimove"].forEach(function (id) { M.show($(id), false); });   // the real game's, not the step's
    load(view.id, function (data) {
      if (!app.classList.contains("replaying")) return;
      var k = Math.min(view.replay_step, data.steps.length);
      map.paint(fold(data, k));
      box.textContent = "";
      box.appendChild(el("h2", "", tr("replay_title")));
      caption(box.appendChild(el("div", "rcap")), data, k);
      seats(box.appendChild(el("div", "rseats")), data, k);
      box.appendChild(chart(data, k));
      box.setAttribute("data-step", k);
    });
  }

  /* The chart and the awards for the table's end show, filled in once the replay has come. */
  function endExtras(view) {
    var box = el("div", "endextra");
    if (view.from_board) return box;
    load(view.id, function (data) {
      box.textContent = "";
      box.appendChild(chart(data));
      box.appendChild(awards(data));
    });
    return box;
  }

  return { fold: fold, lines: lines, caption: caption, seats: seats, load: load, onTable: onTable, endExtras: endExtras,
           chart: chart, awards: awards };
})();
export { Replay };
