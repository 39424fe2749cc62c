/* The phone's map on its turn (issue 37): each legal shape's touch target, a 44 px square over no other legal shape
   nor any shape's spot; a small shape's number on a tag only where it is small on screen. */
import { BoardMap } from "./map.js";
(function (Map) {
  var SVGNS = "http://www.w3.org/2000/svg";
  var THUMB = 46;     // px: 44 and the engines' rounding
  var SMALL = 36;     // px: a narrower inner square: the number on a tag
  var TAG_FONT = 14.5, GAP = 3;   // px: a tag's number, its margin
  var SPOT = 14;                   // px: about every shape's spot and middle, never covered
  var FINGER = 28;                 // px: of an inner square kept free (WCAG 2.5.8: 24)
  var TAG_W = 36, TAG_H = 27;     // px: a tag takes its shape's tap
  var STROKE = 2.5;               // map units: half a legal tag's outline (map.css), drawn outside its box

  function nums(s) { return (s || "").split(" ").map(Number); }
  function inside(rs, x, y) {
    var c = false;
    for (var i = 0; i < rs.length; i++) {
      var r = rs[i];
      for (var k = 0, j = r.length - 1; k < r.length; j = k++) {
        var a = r[j], b = r[k];
        if ((a[1] > y) !== (b[1] > y) && x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])) c = !c;
      }
    }
    return c;
  }
  function meets(a, b, gap) {
    gap = gap || 0;
    return a[0] < b[0] + b[2] + gap && b[0] < a[0] + a[2] + gap && a[1] < b[1] + b[3] + gap && b[1] < a[1] + a[3] + gap;
  }
  function cross(p, q, r, s) {
    function o(a, b, c) { var v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]); return v > 1e-9 ? 1 : v < -1e-9 ? -1 : 0; }
    return o(p, q, r) * o(p, q, s) < 0 && o(r, s, p) * o(r, s, q) < 0;
  }
  /* Whether a box [x, y, w, h] and a shape share any area. */
  function boxMeets(b, rs, bb) {
    if (bb && !meets(b, bb)) return false;
    var x0 = b[0], y0 = b[1], x1 = b[0] + b[2], y1 = b[1] + b[3], c = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], i, j;
    for (i = 0; i < rs.length; i++) for (j = 0; j < rs[i].length; j++) {
      var p = rs[i][j];
      if (p[0] > x0 && p[0] < x1 && p[1] > y0 && p[1] < y1) return true;
    }
    if (inside(rs, (x0 + x1) / 2, (y0 + y1) / 2)) return true;
    for (i = 0; i < 4; i++) if (inside(rs, c[i][0], c[i][1])) return true;
    for (i = 0; i < rs.length; i++) for (j = 0; j < rs[i].length; j++) {
      var a = rs[i][j ? j - 1 : rs[i].length - 1], e = rs[i][j];
      for (var k = 0; k < 4; k++) if (cross(a, e, c[k], c[(k + 1) % 4])) return true;
    }
    return false;
  }
  /* How much of a box lies in a shape (of 35). */
  function share(b, rs, bb) {
    if (bb && !meets(b, bb)) return 0;
    var n = 0;
    for (var i = 0; i < 5; i++) for (var j = 0; j < 3; j++) if (inside(rs, b[0] + b[2] * (i + 0.5) / 5, b[1] + b[3] * (j + 0.5) / 3)) n++;
    return n * 35 / 15;
  }

  Map.prototype.shape = function (nb) {
    var h = this.hoods[nb];
    if (!h.rings) h.rings = Map.rings(h.g.querySelector(".cell").getAttribute("d"));
    if (!h.bb) {
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      h.rings.forEach(function (r) { r.forEach(function (p) { x0 = Math.min(x0, p[0]); y0 = Math.min(y0, p[1]); x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1]); }); });
      h.bb = [x0, y0, x1 - x0, y1 - y0];
      h.core = h.g.hasAttribute("data-core") ? nums(h.g.getAttribute("data-core")) : null;
      h.tagged = !!this.svg.querySelector('.callout[data-callout-of="' + nb + '"]');
      var mx = x0 + (x1 - x0) / 2, my = y0 + (y1 - y0) / 2;
      h.mid = inside(h.rings, mx, my) ? [mx, my] : [h.x, h.y];
    }
    return h;
  };

  /* `all`: the whole board in reach (it scrolls), not only the screen. `opening`: every shape is legal, so with no
     room for every target the tags stay as drawn (there is nowhere off a legal shape to move one to). */
  Map.prototype.fit = function (legal, all, opening) {
    var svg = this.svg, old = svg.querySelector(".targets");
    if (old) old.parentNode.removeChild(old);
    var m = svg.getScreenCTM(), r = svg.getBoundingClientRect();
    if (!legal || !m || !r.width || !svg.querySelector(".nb[data-core]")) { this.home(); return null; }
    var unit = Math.sqrt(m.a * m.a + m.b * m.b) || 1, self = this;

    var right = Math.min(r.right, document.documentElement.clientWidth);
    var vis = all ? this.board() : [(r.left - m.e) / m.a, (r.top - m.f) / m.d, (right - r.left) / m.a, r.height / m.d];
    var ids = Object.keys(legal).filter(function (nb) { return self.hoods[nb] && !self.hoods[nb].g.classList.contains("off"); });
    Object.keys(this.hoods).forEach(function (nb) { self.shape(nb); });
    var targets = this.targets(ids, THUMB / unit, vis);
    // no room for every one (the opening, the whole board at 320 px): no targets (the zoomed map has them), and a
    // drawn tag over another legal shape moved beside its own
    if (ids.some(function (nb) { return !targets[nb]; })) {
      this.home();
      return { tags: all || opening ? {} : this.clear(ids, unit, vis), all: false };
    }
    var g = document.createElementNS(SVGNS, "g");
    g.setAttribute("class", "targets");
    Object.keys(targets).forEach(function (nb) {
      var t = document.createElementNS(SVGNS, "rect"), b = targets[nb];
      ["x", "y", "width", "height"].forEach(function (k, i) { t.setAttribute(k, Math.round(b[i] * 100) / 100); });
      t.setAttribute("class", "target");
      t.setAttribute("data-nb", nb);
      g.appendChild(t);
    });
    var hoods = svg.querySelector(".hoods");
    hoods.parentNode.insertBefore(g, hoods.nextSibling);
    return { targets: targets, tags: this.tags(ids, targets, unit, vis), all: true };
  };
  /* The board magnified in its box `wrap` (w x h px, it scrolls) until every legal shape has its target (an opening:
     55 thumb squares do not fit a phone); null puts it back. */
  Map.prototype.magnify = function (wrap, legal, w, h) {
    var svg = this.svg, b = this.board(), got = null, z = this.z || 2;
    if (!legal) {
      if (wrap.classList.contains("magnified")) { wrap.classList.remove("magnified"); wrap.style.height = svg.style.width = ""; }
      return null;
    }
    wrap.classList.add("magnified");
    wrap.style.height = h + "px";
    this.look(b);
    for (; z <= 8 && !(got && got.all); z += 0.5) {   // the same scale again: the scroll stays
      svg.style.width = Math.round(w * z) + "px";
      svg.style.height = Math.round(w * z * b[3] / b[2]) + "px";
      got = this.fit(legal, true);
    }
    this.z = z - 0.5;
    return got;
  };

  Map.prototype.targets = function (ids, side, vis) {
    var self = this, out = {}, placed = [];
    function fits(b) { return b[0] >= vis[0] && b[1] >= vis[1] && b[0] + b[2] <= vis[0] + vis[2] && b[1] + b[3] <= vis[1] + vis[3]; }
    function free(b) { return placed.every(function (p) { return !meets(b, p); }); }
    var order = ids.slice().sort(function (a, b) {
      var ca = self.hoods[a].core, cb = self.hoods[b].core, big = (cb[2] >= side) - (ca[2] >= side);
      return big || ca[2] - cb[2] || (a < b ? -1 : 1);
    });
    for (var n = 0; n < order.length; n++) {
      var nb = order[n], c = this.hoods[nb].core, best = null, score = Infinity;
      var slack = Math.max(0, (c[2] - side) / 2), reach = c[2] >= side ? slack : side / 2;
      for (var i = -4; i <= 4; i++) for (var j = -4; j <= 4; j++) {
        var x = c[0] + reach * i / 4, y = c[1] + reach * j / 4, b = [x - side / 2, y - side / 2, side, side];
        if (!fits(b) || !free(b)) continue;
        var s = (i * i + j * j) / 32;
        if (c[2] < side) {
          for (var k = 0; k < ids.length && s < Infinity; k++) {
            if (ids[k] !== nb && boxMeets(b, this.hoods[ids[k]].rings, this.hoods[ids[k]].bb)) s = Infinity;
          }
          s -= share(b, this.hoods[nb].rings, this.hoods[nb].bb) / 35;
          s += 5 * this.cores(b, nb);
          if (!this.keeps(b, nb, side * FINGER / THUMB)) s = Infinity;
        }
        if (s < score) { best = b; score = s; }
      }
      if (!best) continue;
      out[nb] = best;
      placed.push(best);
    }
    return out;
  };

  Map.prototype.tags = function (ids, targets, unit, vis) {
    var self = this, out = {}, placed = [], calls = this.svg.querySelectorAll(".callout[data-own]");
    var boxes = Object.keys(targets).map(function (nb) { return [nb, targets[nb]]; }), avoid = this.marks();
    for (var n = 0; n < calls.length; n++) {
      var call = calls[n], nb = call.getAttribute("data-callout-of"), hd = this.hoods[nb], own = nums(call.getAttribute("data-own"));
      var text = call.querySelector(".nid");
      var home = this.remember(call)[".calltag"].map(Number);
      if (hd.core[2] * unit < SMALL && home[2] * unit <= 2.5 * TAG_FONT && this.free(home, nb, ids, boxes, placed, unit, vis)) {
        this.home(call);
        placed.push(home);
        out[nb] = home;
        continue;
      }
      if (hd.core[2] * unit >= SMALL || !this.placeTag(call, hd, ids, boxes, placed, avoid, unit, vis, out)) {

        call.classList.add("inside");
        set(text, { x: own[0], y: own[1], "font-size": own[2], "data-size": own[2] });
      }
    }
    return out;
  };
  /* No room for every target: every tag stays where the drawing has it unless it lies over another legal shape
     (after C08 at 320 px, C01's over C09); that one goes beside its shape where it covers no legal shape, or stays.
     Never the number inside: a shape with a tag is too small on screen for it. */
  Map.prototype.clear = function (ids, unit, vis) {
    var self = this, out = {}, placed = [], avoid = this.marks(), moving = [], calls = this.svg.querySelectorAll(".callout[data-own]");
    for (var n = 0; n < calls.length; n++) {
      var nb = calls[n].getAttribute("data-callout-of"), home = this.remember(calls[n])[".calltag"].map(Number);
      var outline = [home[0] - STROKE, home[1] - STROKE, home[2] + 2 * STROKE, home[3] + 2 * STROKE];
      if (ids.some(function (o) { return o !== nb && boxMeets(outline, self.hoods[o].rings, self.hoods[o].bb); })) moving.push([calls[n], home]);
      else { placed.push(home); out[nb] = home; }
    }
    moving.forEach(function (m) {
      var nb = m[0].getAttribute("data-callout-of");
      var own = self.remember(m[0])[".nid"].map(Number);   // the tag as drawn, only moved
      if (self.placeTag(m[0], self.hoods[nb], ids, [], placed, avoid, unit, vis, out, [m[1][2], m[1][3], own[2]])) return;
      placed.push(m[1]);
      out[nb] = m[1];
    });
    return out;
  };
  /* The boxes a moved tag keeps off if it can: the shapes' numbers, the pieces, the statues. */
  Map.prototype.marks = function () {
    var out = [];
    this.svg.querySelectorAll(".hoods .nid, .slots .piece, .features .statue").forEach(function (e) {
      try { var bb = e.getBBox(); out.push([bb.x, bb.y, bb.width, bb.height]); } catch (err) { /* not drawn */ }
    });
    return out;
  };
  Map.prototype.cores = function (b, nb) {
    var n = 0;
    for (var o in this.hoods) {
      var c = this.hoods[o].core;
      if (o !== nb && c && meets(b, [c[0] - c[2] / 2, c[1] - c[2] / 2, c[2], c[2]])) n++;
    }
    return n;
  };

  /* Whether a box leaves every other shape (legal or not) its spot's and middle's squares, and an untagged one a
     finger of its inner square. */
  Map.prototype.keeps = function (b, nb, side) {
    for (var o in this.hoods) {
      var c = this.hoods[o].core, h = this.hoods[o];
      if (o === nb || !c || h.g.classList.contains("off")) continue;
      var s = Math.min(side * SPOT / FINGER, c[2]) / 2;
      if (meets(b, [h.x - s, h.y - s, 2 * s, 2 * s]) || meets(b, [h.mid[0] - s, h.mid[1] - s, 2 * s, 2 * s])) return false;
      if (h.tagged) continue;   // a small shape's tag takes its tap too
      var x0 = c[0] - c[2] / 2, y0 = c[1] - c[2] / 2, x1 = x0 + c[2], y1 = y0 + c[2];
      if (!meets(b, [x0, y0, c[2], c[2]])) continue;
      var room = Math.max(b[0] - x0, x1 - b[0] - b[2], b[1] - y0, y1 - b[1] - b[3]);
      if (room < Math.min(side, c[2])) return false;
    }
    return true;
  };

  Map.prototype.free = function (b, nb, ids, boxes, placed, unit, vis) {
    var gap = Math.max(GAP / unit, 4), wide = [b[0] - gap, b[1] - gap, b[2] + 2 * gap, b[3] + 2 * gap], self = this;
    if (b[0] < vis[0] + gap || b[1] < vis[1] + gap || b[0] + b[2] > vis[0] + vis[2] - gap || b[1] + b[3] > vis[1] + vis[3] - gap) return false;
    if (placed.some(function (p) { return meets(b, p, gap); })) return false;
    if (boxes.some(function (t) { return t[0] !== nb && meets(b, t[1], gap); })) return false;
    if (!this.keeps(wide, nb, FINGER / unit)) return false;
    return ids.every(function (o) { return o === nb || !boxMeets(wide, self.hoods[o].rings, self.hoods[o].bb); });
  };
  /* One tag beside its shape (`size`: its [width, height, font size] in map units, else a thumb's tag); false when
     there is no room. */
  Map.prototype.placeTag = function (call, hd, ids, boxes, placed, avoid, unit, vis, out, size) {
    var self = this, nb = call.getAttribute("data-callout-of"), text = call.querySelector(".nid");
    var w = size ? size[0] : TAG_W / unit, h = size ? size[1] : TAG_H / unit, f = size ? size[2] : TAG_FONT / unit;
    var gap = Math.max(GAP / unit, 4);
    var best = null, score = Infinity, c = hd.core;
    for (var d = c[2] / 2 + Math.max(w, h) / 2 + gap; d < c[2] / 2 + 120 / unit; d += 6 / unit) {
      if ((d - c[2] / 2) * unit > score) break;
      for (var a = 0; a < 20; a++) {
        var x = c[0] + d * Math.cos(a * Math.PI / 10), y = c[1] + d * Math.sin(a * Math.PI / 10), b = [x - w / 2, y - h / 2, w, h];
        var s = (d - c[2] / 2) * unit + 200 * this.cores(b, nb);
        for (var v = 0; v < avoid.length; v++) if (meets(b, avoid[v])) s += 40;
        if (s >= score) continue;
        for (var o in self.hoods) if (o !== nb && ids.indexOf(o) < 0) s += 6 * share(b, self.hoods[o].rings, self.hoods[o].bb);
        s += 4 * share(b, hd.rings, hd.bb);
        if (s < score && this.free(b, nb, ids, boxes, placed, unit, vis)) { best = b; score = s; }
      }
    }
    if (!best) return false;
    call.classList.remove("inside");
    placed.push(best);
    out[nb] = best;
    var cx = best[0] + w / 2, cy = best[1] + h / 2;
    set(call.querySelector(".calltag"), { x: best[0], y: best[1], width: w, height: h, rx: 4 / unit });
    if (call.querySelector(".halo")) set(call.querySelector(".halo"), { x: best[0], y: best[1], width: w, height: h });
    set(text, { x: cx, y: cy, "font-size": f, "data-size": f });
    set(call.querySelector(".leader"), { x1: cx, y1: cy, x2: c[0], y2: c[1] });
    set(call.querySelector(".leader-end"), { cx: c[0], cy: c[1], r: 3 / unit });
    return true;
  };
  function set(e, attrs) {
    for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, typeof attrs[k] === "number" ? Math.round(attrs[k] * 100) / 100 : attrs[k]);
  }
  var KEEP = { ".calltag": ["x", "y", "width", "height", "rx"], ".halo": ["x", "y", "width", "height"], ".nid": ["x", "y", "font-size"], ".leader": ["x1", "y1", "x2", "y2"], ".leader-end": ["cx", "cy", "r"] };
  /* A tag's attributes as drawn, kept when first moved. */
  Map.prototype.remember = function (call) {
    if (!call.__home) {
      call.__home = {};
      for (var s in KEEP) if (call.querySelector(s)) call.__home[s] = KEEP[s].map(function (k) { return call.querySelector(s).getAttribute(k); });
    }
    return call.__home;
  };
  /* One tag (or every tag) back home. */
  Map.prototype.home = function (call) {
    var calls = call ? [call] : this.svg.querySelectorAll(".callout");
    for (var i = 0; i < calls.length; i++) {
      var c = calls[i];
      c.classList.remove("inside");
      if (!c.__home) continue;
      for (var s in c.__home) for (var j = 0; j < KEEP[s].length; j++) c.querySelector(s).setAttribute(KEEP[s][j], c.__home[s][j]);
      c.querySelector(".nid").setAttribute("data-size", c.__home[".nid"][2]);
    }
  };
})(BoardMap);
