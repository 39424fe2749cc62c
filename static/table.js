/* The table display: follows the most recent game and shows only what everyone may see. */
"use strict";
(function () {
  var $ = M.$;
  var map = new M.Map($("map"));
  var gameId = null, sock = null, view = null, live = false;

  function render() {
    if (!view) return;
    M.mark($("app"), view, live);
    M.status($("status"), view);
    map.paint(view);
    M.callPanel(view);
    M.playersPanel($("players"), view);
    M.show($("end"), view.phase === "finished");
    if (view.phase === "finished") {
      M.endPanel($("end"), view, gameId);
      $("end").insertBefore(M.el("h2", "", M.tr("game_over")), $("end").firstChild);
    }
    // Always there: a player whose phone lost the page scans it again to get back to their seat.
    M.show($("join-qr"), true);
    $("join-url").textContent = view.join_url || "";
  }

  function take(next) {
    if (!next || !next.phase) return;
    if (view && next.seq < view.seq && next.id === view.id) return;
    view = next;
    render();
  }

  function follow(id) {
    if (!id || id === gameId) return;
    if (sock) sock.stop();
    gameId = id;
    view = null;
    $("join-qr").querySelector("img").src = "/qr/join/" + encodeURIComponent(id) + ".svg";
    sock = M.live(id, take, function (on) { live = on; M.connBadge(on); $("status").classList.toggle("stale", !on); render(); });
  }

  function poll() {
    M.api("GET", "/api/games/current").then(function (res) {
      if (res.ok && res.data && res.data.id) follow(res.data.id);
      else if (!gameId) $("status").textContent = M.tr("no_game_yet");
    });
  }
  poll();
  setInterval(poll, 5000);
})();
