/* How to play: each example's pieces painted on its excerpt of the real map by static/map.js, as in a game. */
"use strict";
(function () {
  var letters = JSON.parse(document.getElementById("letters").textContent);
  // map.js reads the colour letters from the page strings (M.S.ui); this page carries only those.
  if (!window.M) window.M = { S: { ui: { letter_blue: letters.blue, letter_red: letters.red, letter_white: letters.white, letter_gray: letters.gray } } };
  var figures = document.querySelectorAll("figure.example");
  for (var i = 0; i < figures.length; i++) {
    var svg = figures[i].querySelector("svg.map");
    var scene = JSON.parse(figures[i].querySelector("script.scene").textContent);
    var map = new BoardMap(svg);
    map.paint(scene);
    if (scene.lit.length) {
      var lit = {};
      scene.lit.forEach(function (nb) { lit[nb] = true; });
      map.mark(lit, null);
    }
  }
})();
