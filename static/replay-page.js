/* The replay page (/g/<id>/replay): any phone steps through a finished game alone; the host's phone may take the table
   screen along (POST /api/games/<id>/replay/show). The drawing is static/replay.js's, shared with the table screen. */
import { M } from "./app.js";
import { Replay } from "./replay.js";
(function () {
  var $ = M.$, el = M.el, tr = M.tr;
  var fold = Replay.fold, caption = Replay.caption, seats = Replay.seats, chart = Replay.chart, awards = Replay.awards;
  var root = $("replay-app");
  if (!root) return;
  var id = root.getAttribute("data-game"), map = new M.Map($("map"), {}), data = null, k = 0, timer = null;
  var host = false, onTable = false, sent = null, sending = false;
  function send() {
    if (sending || !host) return;
    var want = onTable ? k : null;
    if (want === sent) return;
    sending = true;
    M.api("POST", "/api/games/" + encodeURIComponent(id) + "/replay/show", { step: want }).then(function (res) {
      sending = false;
      if (res.ok) sent = want;
      else { onTable = false; $("r-table").checked = false; $("r-msg").textContent = M.errorOf(res); return; }
      send();   // the newest step, if it moved on while this one was under way
    });
  }
  function go(to) {
    k = Math.max(0, Math.min(data.steps.length, to));
    map.paint(fold(data, k));
    caption($("r-caption"), data, k);
    seats($("r-seats"), data, k);
    var ch = $("r-chart");
    ch.textContent = "";
    ch.appendChild(chart(data, k));
    $("r-first").disabled = $("r-back").disabled = k === 0;
    $("r-next").disabled = $("r-last").disabled = k === data.steps.length;
    var s = data.steps[k - 1];
    $("r-calls").value = s ? String(s.call) : "";
    root.setAttribute("data-step", k);
    if (k === data.steps.length) stop();
    send();
  }
  function stop() {
    clearInterval(timer);
    timer = null;
    $("r-play").textContent = tr("replay_play");
    root.removeAttribute("data-playing");
  }
  function play() {
    if (timer) return stop();
    if (k === data.steps.length) go(0);
    $("r-play").textContent = tr("replay_pause");
    root.setAttribute("data-playing", "1");
    timer = setInterval(function () { go(k + 1); }, 1200);
  }
  $("r-first").onclick = function () { stop(); go(0); };
  $("r-back").onclick = function () { stop(); go(k - 1); };
  $("r-next").onclick = function () { stop(); go(k + 1); };
  $("r-last").onclick = function () { stop(); go(data.steps.length); };
  $("r-play").onclick = play;
  $("r-calls").onchange = function () {
    var c = +this.value, first = data.steps.filter(function (s) { return s.call === c && !s.written; })[0];
    stop();
    if (first) go(first.seq);
  };
  $("r-table").onchange = function () { onTable = this.checked; $("r-msg").textContent = ""; send(); };
  document.addEventListener("keydown", function (ev) {
    if (!data || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowLeft") { stop(); go(k - 1); }
    else if (ev.key === "ArrowRight") { stop(); go(k + 1); }
  });
  M.api("GET", "/api/games/" + encodeURIComponent(id)).then(function (res) {
    host = !!(res.ok && res.data && res.data.host && res.data.phase === "finished");
    M.show($("r-host"), host);
    if (host && typeof res.data.replay_step === "number") { onTable = true; sent = res.data.replay_step; $("r-table").checked = true; }
  });
  M.api("GET", "/api/games/" + encodeURIComponent(id) + "/replay").then(function (res) {
    if (!res.ok) { $("r-msg").textContent = M.errorOf(res); root.setAttribute("data-ready", "refused"); return; }
    data = res.data;
    var sel = $("r-calls"), last = data.steps.length ? data.steps[data.steps.length - 1].call : 0;
    for (var c = 1; c <= last; c++) { var o = sel.appendChild(el("option", "", tr("replay_call", { call: c }))); o.value = String(c); }
    $("r-awards").appendChild(awards(data));
    M.show($("r-body"), true);
    root.setAttribute("data-ready", "1");
    go(onTable && typeof sent === "number" ? sent : 0);
  });
})();
