/* The board map: paints tokens, buildings, bids and removed districts onto the server-drawn SVG, with DOM calls only. */
"use strict";
var BoardMap = (function () {
  var SVGNS = "http://www.w3.org/2000/svg";
  var INK = { blue: "#fff", red: "#fff", white: "#111", gray: "#fff" };
  /* Each colour also has a shape (the chips in every list wear the same one): told apart without hue,
     whatever the eye (deuteranopia, protanopia, tritanopia) or a grey screen in sunlight. */
  var SHAPE = { blue: "circle", red: "triangle", white: "square", gray: "diamond" };

  function node(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  /* A board scored from the table gives heights, never numbers: S, M or T (nothing in Family). */
  function heightMark(height) {
    return height ? Map.words.ui["height_short_" + height] || height.charAt(0).toUpperCase() : "";
  }
  function letterOf(color) {
    return Map.words.ui["letter_" + color] || color.charAt(0).toUpperCase();
  }

  /* opts.fresh: a new bid or building is marked for a few seconds (the table screen). */
  function Map(svg, opts) {
    this.svg = svg;
    this.hoods = {};
    this.fresh = !!(opts && opts.fresh);
    this.seen = null;          // what each neighborhood held at the last paint: "bid:red:4" or "built:red:4"
    this.since = {};           // when each neighborhood's piece changed (ms), while it is still marked
    var gs = svg.querySelectorAll(".nb");
    for (var i = 0; i < gs.length; i++) {
      var g = gs[i], nb = g.getAttribute("data-nb");
      var slot = svg.querySelector('.slot[data-nb="' + nb + '"]');
      this.hoods[nb] = {
        g: g, x: +g.getAttribute("data-x"), y: +g.getAttribute("data-y"), slot: slot,
        district: g.getAttribute("data-district"),
        token: spot(slot, "t"), piece: spot(slot, "p")
      };
    }
    this.full = (svg.getAttribute("viewBox") || "").split(" ").map(Number);
  }
  function spot(slot, p) {
    if (!slot.hasAttribute("data-" + p + "x")) return null;
    return { x: +slot.getAttribute("data-" + p + "x"), y: +slot.getAttribute("data-" + p + "y"), s: +slot.getAttribute("data-" + p + "s") };
  }

  Map.prototype.paint = function (view) {
    var removed = view.removed_districts || [];
    var lands = this.svg.querySelectorAll(".land");
    for (var i = 0; i < lands.length; i++) lands[i].classList.toggle("off", removed.indexOf(lands[i].getAttribute("data-district")) >= 0);
    var tags = this.svg.querySelectorAll(".callout");
    for (var t = 0; t < tags.length; t++) tags[t].classList.toggle("off", removed.indexOf(tags[t].getAttribute("data-district")) >= 0);
    var bids = {}, first = !this.seen;
    if (this.fresh) this.seen = this.seen || {};
    (view.call || []).forEach(function (b, i, all) { bids[b.neighborhood] = { b: b, last: i === all.length - 1 }; });
    for (var nb in this.hoods) {
      var h = this.hoods[nb];
      h.g.classList.toggle("off", removed.indexOf(h.district) >= 0);
      while (h.slot.firstChild) h.slot.removeChild(h.slot.firstChild);
      var tok = (view.tokens || {})[nb];
      if (tok && h.token) h.slot.appendChild(token(nb, tok, h.token));
      var built = (view.built || {})[nb], piece = null;
      if (built) piece = h.slot.appendChild(building(nb, built.color, built.value != null ? built.value : heightMark(built.height), h.piece));
      else if (bids[nb]) piece = h.slot.appendChild(bidPiece(nb, bids[nb].b.color, bids[nb].b.value, h.piece, bids[nb].last));
      if (this.fresh) this.markFresh(nb, piece, first, built ? "built:" + built.color + ":" + built.value :
                                      bids[nb] ? "bid:" + bids[nb].b.color + ":" + bids[nb].b.value : "");
    }
  };
  var FRESH_MS = 4500;
  /* A piece that was not there at the last paint is marked; repainted within the few seconds, the mark goes on where it was. */
  Map.prototype.markFresh = function (nb, piece, first, what) {
    var now = Date.now(), before = first ? what : this.seen[nb] || "";
    this.seen[nb] = what;
    if (what && what !== before) this.since[nb] = now;
    else if (!what || now - (this.since[nb] || 0) >= FRESH_MS) delete this.since[nb];
    if (piece && this.since[nb] !== undefined) {
      piece.classList.add("fresh");
      var parts = piece.querySelectorAll("path, rect");
      for (var i = 0; i < parts.length; i++) parts[i].style.animationDelay = -(now - this.since[nb]) + "ms";
    }
  };

  /* One district lit, the others dimmed: the table checks the board a district at a time. */
  Map.prototype.focus = function (district) {
    this.svg.classList.toggle("focusing", !!district);
    for (var nb in this.hoods) this.hoods[nb].g.classList.toggle("focus", this.hoods[nb].district === district);
    var slots = this.svg.querySelectorAll(".slot");
    for (var i = 0; i < slots.length; i++) slots[i].classList.toggle("focus", this.hoods[slots[i].getAttribute("data-nb")].district === district);
  };

  Map.prototype.mark = function (legal, selected) {
    this.svg.classList.toggle("choosing", !!legal);
    var tags = this.svg.querySelectorAll(".callout");
    for (var nb in this.hoods) {
      this.hoods[nb].g.classList.toggle("legal", !!legal && legal.hasOwnProperty(nb));
      this.hoods[nb].g.classList.toggle("picked", nb === selected);
    }
    for (var i = 0; i < tags.length; i++) {
      var of = tags[i].getAttribute("data-callout-of");
      tags[i].classList.toggle("legal", !!legal && legal.hasOwnProperty(of));
      tags[i].classList.toggle("picked", of === selected);
    }
  };

  /* A tap on a shape, its halo or its tag picks it. A tap on the street or water beside it goes to the shapes within a
     finger's reach: with `legal` (this phone's turn), to the legal ones only; one of them is picked, two about as near
     are both offered (asked, never guessed); none legal near, the nearest shape takes the tap (and says why not).
     Distances are exact, in map units, to each outline's segments: every engine finds the same shapes. */
  var REACH_PX = 24, TIE_PX = 10;
  Map.prototype.onTap = function (cb, ask, legal) {
    var self = this;
    this.svg.addEventListener("click", function (ev) {
      var g = ev.target.closest ? ev.target.closest("[data-nb]") : null;
      if (g && self.hoods[g.getAttribute("data-nb")]) { cb(g.getAttribute("data-nb"), self.hoods[g.getAttribute("data-nb")]); return; }
      var near = self.nearest(ev.clientX, ev.clientY, legal ? legal() : null);
      if (near.length === 1 || (near.length > 1 && !ask)) cb(near[0], self.hoods[near[0]]);
      else if (near.length > 1) ask(near);
    });
  };
  /* The shapes a tap at this point of the screen may mean (see onTap), nearest first. */
  Map.prototype.nearest = function (cx, cy, legal) {
    var m = this.svg.getScreenCTM();
    if (!m) return [];
    var pt = this.svg.createSVGPoint();
    pt.x = cx; pt.y = cy;
    var p = pt.matrixTransform(m.inverse()), unit = Math.sqrt(m.a * m.a + m.b * m.b) || 1;
    var reach = REACH_PX / unit, found = [];
    for (var nb in this.hoods) {
      var h = this.hoods[nb];
      if (h.g.classList.contains("off")) continue;
      if (!h.rings) h.rings = rings(h.g.querySelector(".cell").getAttribute("d"));
      var d = distance(h.rings, p.x, p.y);
      if (d <= reach) found.push([d, nb]);
    }
    found.sort(function (a, b) { return a[0] - b[0] || (a[1] < b[1] ? -1 : 1); });
    if (legal) {
      var ok = found.filter(function (f) { return legal.hasOwnProperty(f[1]); });
      if (!ok.length) return found.length ? [found[0][1]] : [];
      found = ok;
    }
    return found.filter(function (f) { return f[0] - found[0][0] <= TIE_PX / unit; }).map(function (f) { return f[1]; });
  };
  /* A shape's outline ("M x,y L x,y ... Z", one or more rings) as rings of [x, y]. */
  function rings(d) {
    var out = [], cur = null, re = /([MLZ])\s*([-\d.eE]+)?[ ,]*([-\d.eE]+)?/gi, t;
    while ((t = re.exec(d))) {
      var c = t[1].toUpperCase();
      if (c === "M") { cur = [[+t[2], +t[3]]]; out.push(cur); }
      else if (c === "L" && cur) cur.push([+t[2], +t[3]]);
    }
    return out;
  }
  /* From a point to a shape: 0 inside (even-odd), else to the nearest point of its outline. */
  function distance(rs, x, y) {
    var best = Infinity, inside = false;
    rs.forEach(function (r) {
      for (var i = 0, j = r.length - 1; i < r.length; j = i++) {
        var a = r[j], b = r[i], dx = b[0] - a[0], dy = b[1] - a[1], l = dx * dx + dy * dy;
        if ((a[1] > y) !== (b[1] > y) && x < a[0] + (y - a[1]) * dx / dy) inside = !inside;
        var k = l ? Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / l)) : 0;
        best = Math.min(best, Math.hypot(x - a[0] - k * dx, y - a[1] - k * dy));
      }
    });
    return inside ? 0 : best;
  }

  /* Each shape takes a tap a few units into the water and street around it: a halo under every shape, the smaller
     shapes' over the larger ones' (a street between two goes to the smaller), so the water between two shapes
     stays a narrow band that is asked about; each tag takes a tap a few units around it too (the phone's map). */
  Map.prototype.halos = function (reach) {
    var g = node("g", { "class": "halos" }), hoods = this.svg.querySelector(".hoods"), self = this;
    Object.keys(this.hoods).map(function (nb) {
      var b = self.hoods[nb].g.querySelector(".cell").getBBox();
      return [b.width * b.height, nb];
    }).sort(function (a, b) { return b[0] - a[0]; }).forEach(function (s) {
      g.appendChild(node("path", { "class": "halo", "data-nb": s[1], d: self.hoods[s[1]].g.querySelector(".cell").getAttribute("d"),
        "stroke-width": 2 * reach }));
    });
    hoods.parentNode.insertBefore(g, hoods);
    var tags = this.svg.querySelectorAll(".callout[data-nb] .calltag");
    for (var i = 0; i < tags.length; i++) {
      var t = tags[i].cloneNode(false);
      t.setAttribute("class", "halo");
      t.setAttribute("stroke-width", reach);
      tags[i].parentNode.insertBefore(t, tags[i]);
    }
  };

  /* The whole drawing, or a box of it [x, y, w, h] in map units; `zoomed` when it is a part of the board. */
  Map.prototype.look = function (box, zoomed) {
    var b = box || this.full;
    this.svg.setAttribute("viewBox", b.map(function (v) { return Math.round(v * 10) / 10; }).join(" "));
    this.svg.classList.toggle("zoomed", !!zoomed);
    if (!zoomed) this.legible([], 0);
  };
  /* The board without the strip above it that holds the compass: [x, y, w, h]. */
  Map.prototype.board = function () {
    var r = this.svg.querySelector(".river");
    return r ? ["x", "y", "width", "height"].map(function (k) { return +r.getAttribute(k); }) : this.full;
  };
  /* The box that shows these neighborhoods (number, piece, tag) as large as a w x h px screen allows, at most `most`
     px a unit; a little of the board around them. */
  Map.prototype.around = function (nbs, w, h, most) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, self = this;
    function add(x, y, r) { x0 = Math.min(x0, x - r); y0 = Math.min(y0, y - r); x1 = Math.max(x1, x + r); y1 = Math.max(y1, y + r); }
    nbs.forEach(function (nb) {
      var hd = self.hoods[nb];
      if (!hd) return;
      add(hd.x, hd.y, Math.max(hd.piece ? hd.piece.s / 2 : 0, 22) + 16);
      var labels = self.svg.querySelectorAll('.nid[data-label-of="' + nb + '"], .callout[data-callout-of="' + nb + '"] .calltag');
      for (var i = 0; i < labels.length; i++) {
        var b = labels[i].getBBox();
        add(b.x + b.width / 2, b.y + b.height / 2, Math.max(b.width, b.height) / 2 + 14);
      }
    });
    if (x0 === Infinity) return null;
    var k = Math.min(w / (x1 - x0), h / (y1 - y0), most);
    var bw = w / k, bh = h / k, f = this.full;
    var x = (x0 + x1) / 2 - bw / 2, y = (y0 + y1) / 2 - bh / 2;
    x = bw >= f[2] ? f[0] + (f[2] - bw) / 2 : Math.max(f[0], Math.min(x, f[0] + f[2] - bw));
    y = bh >= f[3] ? f[1] + (f[3] - bh) / 2 : Math.max(f[1], Math.min(y, f[1] + f[3] - bh));
    return [x, y, bw, bh];
  };
  /* On a zoomed map the numbers of these neighborhoods and of their pieces are never smaller than `label` and `piece`
     px: drawn larger than the board's own where the zoom alone leaves them small. */
  Map.prototype.legible = function (nbs, label, piece) {
    var m = this.svg.getScreenCTM(), unit = m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1, self = this;
    var texts = this.svg.querySelectorAll(".nid");
    for (var i = 0; i < texts.length; i++) {
      var t = texts[i], nb = t.getAttribute("data-label-of");
      if (!t.hasAttribute("data-size")) t.setAttribute("data-size", t.getAttribute("font-size"));
      var size = +t.getAttribute("data-size"), want = nbs.indexOf(nb) >= 0 ? Math.max(size, label / unit) : size;
      want = Math.round(want * 10) / 10;
      if (+t.getAttribute("font-size") !== want) t.setAttribute("font-size", want);
      t.classList.toggle("raised", want > size);
    }
    nbs.forEach(function (nb) {
      var h = self.hoods[nb], pieces = h ? h.slot.querySelectorAll(".piece.bid, .piece.built") : [];
      for (var j = 0; j < pieces.length; j++) {
        var num = pieces[j].querySelector(".bv, .pv"), px = num ? parseFloat(getComputedStyle(num).fontSize) * num.getScreenCTM().a : piece;
        if (px >= piece) continue;
        pieces[j].setAttribute("transform", "translate(" + h.piece.x + " " + h.piece.y + ") scale(" + h.piece.s / 44 * piece / px + ")");
      }
    });
  };

  /* The token layout as lines, one per district in play: "Center: trendy neighborhood C01, C05; subway C03". */
  var ORDER = ["center", "north", "east", "south", "west"], KINDS = ["trendy", "subway", "archaeological"];
  Map.prototype.layoutLines = function (tokens, removed) {
    var byDistrict = {}, self = this, w = Map.words;
    Object.keys(tokens || {}).sort().forEach(function (nb) {
      var h = self.hoods[nb];
      if (!h) return;
      var d = byDistrict[h.district] = byDistrict[h.district] || {};
      (d[tokens[nb]] = d[tokens[nb]] || []).push(nb);
    });
    return ORDER.filter(function (d) { return (removed || []).indexOf(d) < 0; }).map(function (d) {
      var kinds = byDistrict[d] || {};
      var parts = KINDS.filter(function (k) { return kinds[k]; }).map(function (k) { return w.term(k) + " " + kinds[k].join(", "); });
      return { district: d, count: Object.keys(kinds).reduce(function (n, k) { return n + kinds[k].length; }, 0),
        kinds: KINDS.filter(function (k) { return kinds[k]; }).map(function (k) { return [k, kinds[k]]; }),
        text: w.cap(w.term(d)) + ": " + (parts.length ? parts.join("; ") : w.tr("layout_none")) };
    });
  };
  Map.prototype.list = function (ul, tokens, removed) {
    var w = Map.words;
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    this.layoutLines(tokens, removed).forEach(function (line) {
      var li = document.createElement("li");
      li.setAttribute("data-district", line.district);
      var head = document.createElement("b");
      head.textContent = w.cap(w.term(line.district)) + ":";
      li.appendChild(head);
      if (!line.kinds.length) li.appendChild(document.createTextNode(" " + w.tr("layout_none")));
      line.kinds.forEach(function (kn, i) {
        li.appendChild(document.createTextNode(i ? "; " : " "));
        var icon = node("svg", { viewBox: "0 0 20 20", "class": "ti", "aria-hidden": "true" });
        var u = node("use", {});
        u.setAttribute("href", "#t-" + kn[0]);
        icon.appendChild(u);
        li.appendChild(icon);
        li.appendChild(document.createTextNode(w.term(kn[0]) + " " + kn[1].join(", ")));
      });
      ul.appendChild(li);
    });
  };

  /* The host walks the table through the districts, one at a time, lighting that district's tokens. */
  Map.prototype.checker = function (box, ul) {
    var self = this, step = -1, lines = [], w = Map.words;
    var start = button(w.tr("check_start")), next = button(w.tr("check_next")), stop = button(w.tr("check_stop"));
    var say = document.createElement("p");
    say.className = "check-step";
    say.setAttribute("aria-live", "polite");
    start.id = "check-start"; next.id = "check-next"; stop.id = "check-stop";
    next.className = "btn primary";
    box.appendChild(start); box.appendChild(say); box.appendChild(next); box.appendChild(stop);
    function show() {
      var on = step >= 0 && step < lines.length;
      start.hidden = on; next.hidden = !on; stop.hidden = !on;
      var d = on ? lines[step].district : null;
      self.focus(d);
      var items = ul.querySelectorAll("li");
      for (var i = 0; i < items.length; i++) items[i].classList.toggle("focus", items[i].getAttribute("data-district") === d);
      say.textContent = on ? w.tr("check_step", { district: w.cap(w.term(d)), n: lines[step].count, i: step + 1, total: lines.length }) :
        step >= lines.length ? w.tr("check_done") : "";
      box.setAttribute("data-step", on ? d : step >= lines.length ? "done" : "");
      if (on) next.textContent = w.tr(step === lines.length - 1 ? "check_finish" : "check_next");
    }
    start.onclick = function () { step = 0; show(); };
    next.onclick = function () { step += 1; show(); };
    stop.onclick = function () { step = -1; show(); };
    show();
    return { update: function (tokens, removed) { lines = self.layoutLines(tokens, removed); if (step >= 0 && step < lines.length) show(); } };
  };
  function button(text) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "btn";
    b.textContent = text;
    return b;
  }

  function use(id, x, y, size) {
    var u = node("use", { x: x - size / 2, y: y - size / 2, width: size, height: size });
    u.setAttribute("href", "#" + id);
    return u;
  }
  function token(nb, kind, at) {
    var g = node("g", { "class": "piece token", "data-token-of": nb, "data-kind": kind });
    g.appendChild(use("t-" + kind, at.x, at.y, at.s));
    return g;
  }
  /* The colour's shape, centred on (x, y), r across half its width, in the piece's ink. */
  function mark(color, x, y, r) {
    var shape = SHAPE[color] || "square", a = { "class": "mark", "data-mark": shape, fill: INK[color] };
    if (shape === "circle") { a.cx = x; a.cy = y; a.r = r; return node("circle", a); }
    a.d = shape === "triangle" ? "M" + x + " " + (y - r * 1.1) + "L" + (x + r * 1.15) + " " + (y + r * 0.9) + "H" + (x - r * 1.15) + "Z"
      : shape === "diamond" ? "M" + x + " " + (y - r * 1.3) + "L" + (x + r * 1.3) + " " + y + "L" + x + " " + (y + r * 1.3) + "L" + (x - r * 1.3) + " " + y + "Z"
      : "M" + (x - r) + " " + (y - r) + "h" + 2 * r + "v" + 2 * r + "h" + -2 * r + "Z";
    return node("path", a);
  }

  function building(nb, color, value, at) {
    var k = at.s / 44, x = at.x, y = at.y;
    var g = node("g", { "class": "piece built c-" + color, "data-building-of": nb, transform: "translate(" + x + " " + y + ") scale(" + k + ")" });
    g.appendChild(node("path", { d: "M-21 20v-24l21-16 21 16v24z" }));
    g.appendChild(node("text", { x: -7, y: 15, fill: INK[color], "class": "pl" }, letterOf(color)));
    g.appendChild(node("text", { x: 9, y: 15, fill: INK[color], "class": "pv" }, value));
    g.appendChild(mark(color, 0, -5, 5));
    return g;
  }
  function bidPiece(nb, color, value, at, last) {
    var k = at.s / 44, x = at.x, y = at.y;
    var g = node("g", { "class": "piece bid c-" + color + (last ? " last" : ""), "data-bid-of": nb, transform: "translate(" + x + " " + y + ") scale(" + k + ")" });
    g.appendChild(node("rect", { x: -20, y: -20, width: 40, height: 40, rx: 7 }));
    g.appendChild(node("text", { x: 3, y: 12, fill: INK[color], "class": "bv" }, value));
    g.appendChild(node("text", { x: -12, y: -7, fill: INK[color], "class": "bl" }, letterOf(color)));
    g.appendChild(mark(color, 10, -10, 5));
    return g;
  }

  Map.rings = rings;          // for static/map-fit.js
  /* The page's language, given by the page (app.js: its strings; learn.js: the colours' letters only), so the map
     imports no page script: the colours' letters and heights' marks (ui), the layout's words (tr, term, cap). */
  Map.words = { ui: {} };
  return Map;
})();
export { BoardMap };
