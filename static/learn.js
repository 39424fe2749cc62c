/* How to play: each example's pieces painted on its excerpt of the real map by static/map.js, as in a game. */
import { BoardMap } from "./map.js";
(function () {
  var letters = JSON.parse(document.getElementById("letters").textContent);
  // The colours' letters in this page's language (a game's pages give the map all their strings: app.js).
  BoardMap.words = { ui: { letter_blue: letters.blue, letter_red: letters.red, letter_white: letters.white, letter_gray: letters.gray } };
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
