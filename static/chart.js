/* A picture of a finished game: each colour's points after each call, the lead changes marked (issue 41). Drawn here
   as SVG with DOM calls only, from the replay (GET /api/games/<id>/replay): the points of the last step of each call. */
var Chart = (function () {
  var NS = "http://www.w3.org/2000/svg";
  var INK = { blue: "#1f4fb8", red: "#c41f1f", white: "#111", gray: "#6a6a6a" };
  var DASH = { blue: "", red: "9 4", white: "2 3", gray: "12 3 2 3" };   // told apart without hue, like the chips' letters

  function node(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  /* [{call, step, scores}] for the board before the first bid and after each call's end. */
  function calls(data) {
    var zero = {}, out = [];
    data.players.forEach(function (p) { zero[p.color] = 0; });
    out.push({ call: 0, step: 0, scores: zero });
    data.steps.forEach(function (s, i) { if (s.ended) out.push({ call: s.call, step: i + 1, scores: s.scores }); });
    return out;
  }

  /* Where the lead changed hands: a sole leader other than the last sole leader (a tie keeps the lead where it was). */
  function leads(points, colors) {
    var out = [], leader = null;
    points.forEach(function (pt, i) {
      var best = Math.max.apply(null, colors.map(function (c) { return pt.scores[c]; }));
      var top = colors.filter(function (c) { return pt.scores[c] === best; });
      if (top.length !== 1 || top[0] === leader) return;
      if (leader !== null) out.push({ at: i, color: top[0] });
      leader = top[0];
    });
    return out;
  }

  /* The chart as an <svg> (scales to its box; its own text in the page's language via `label(color)`). `upto`: the
     step a replay shows: the calls after it are drawn faint. */
  function draw(data, label, upto) {
    var colors = data.players.map(function (p) { return p.color; }), pts = calls(data), changes = leads(pts, colors);
    var W = 600, H = 260, L = 36, R = 40, T = 12, B = 26;
    var lo = 0, hi = 10;
    pts.forEach(function (pt) { colors.forEach(function (c) { lo = Math.min(lo, pt.scores[c]); hi = Math.max(hi, pt.scores[c]); }); });
    var n = Math.max(pts.length - 1, 1);
    function x(i) { return L + (W - L - R) * i / n; }
    function y(v) { return T + (H - T - B) * (hi - v) / (hi - lo); }
    var svg = node("svg", { viewBox: "0 0 " + W + " " + H, "class": "chart", role: "img" });
    var stepTicks = hi - lo > 60 ? 20 : 10;
    for (var v = Math.ceil(lo / stepTicks) * stepTicks; v <= hi; v += stepTicks) {
      svg.appendChild(node("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), "class": v === 0 ? "axis" : "grid" }));
      svg.appendChild(node("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", "class": "tick" }, v));
    }
    var every = Math.ceil(n / 12);
    pts.forEach(function (pt, i) {
      if (i && (i % every === 0 || (i === n && n % every > every / 2))) svg.appendChild(node("text", { x: x(i), y: H - 8, "text-anchor": "middle", "class": "tick" }, pt.call));
    });
    var shown = typeof upto === "number" ? pts.filter(function (pt) { return pt.step <= upto; }).length - 1 : n;
    if (shown < n) svg.appendChild(node("rect", { x: x(Math.max(shown, 0)), y: T, width: x(n) - x(Math.max(shown, 0)), height: H - T - B, "class": "later" }));
    changes.forEach(function (ch) {
      var g = svg.appendChild(node("g", { "class": "lead", "data-call": pts[ch.at].call, "data-color": ch.color }));
      g.appendChild(node("line", { x1: x(ch.at), x2: x(ch.at), y1: T, y2: H - B }));
      g.appendChild(node("circle", { cx: x(ch.at), cy: y(pts[ch.at].scores[ch.color]), r: 9 }));
      g.appendChild(node("title", {}, label(ch.color, true)));
    });
    colors.forEach(function (c) {
      var d = pts.map(function (pt, i) { return (i ? "L" : "M") + x(i).toFixed(1) + " " + y(pt.scores[c]).toFixed(1); }).join("");
      svg.appendChild(node("path", { d: d, "class": "pline", "data-color": c, stroke: INK[c], "stroke-dasharray": DASH[c] }));
      var last = pts[pts.length - 1];
      svg.appendChild(node("text", { x: W - R + 4, y: y(last.scores[c]) + 5, "class": "pend", fill: INK[c] }, label(c, false)));
    });
    return svg;
  }

  return { calls: calls, leads: leads, draw: draw };
})();
export { Chart };
