/* The phone's live socket, opened as the page's head is parsed (this text is written into the page, admitted by its
   hash: web/guard.py): on a slow phone its handshake and first view arrive while the page's scripts still travel.
   It keeps the socket on its own element (no global): app.js (M.live) takes it over with the views that arrived
   meanwhile. */
"use strict";
(function () {
  var me = document.currentScript, id = me && me.getAttribute("data-game");
  if (!id || !window.WebSocket) return;
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
    "/api/games/" + encodeURIComponent(id) + "/live";
  var early = { url: url, ws: null, views: [] };
  try { early.ws = new WebSocket(url); } catch (e) { return; }
  early.ws.onmessage = function (ev) { early.views.push(ev); };
  me.socket = early;
})();
