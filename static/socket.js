/* The phone's live socket, opened from the page's head: on a slow phone its handshake and first view arrive
   while the page is still being laid out, instead of after it. app.js (M.live) takes it over with the views
   that arrived meanwhile; if it comes too late (app.js opened its own), it does nothing. */
"use strict";
(function () {
  var me = document.currentScript, id = me && me.getAttribute("data-game");
  if (!id || !window.WebSocket || window.earlySocket === false) return;
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
    "/api/games/" + encodeURIComponent(id) + "/live";
  var early = { url: url, ws: null, views: [] };
  try { early.ws = new WebSocket(url); } catch (e) { return; }
  early.ws.onmessage = function (ev) { early.views.push(ev); };
  window.earlySocket = early;
})();
