"""What a thumb meets on the phone's map, measured on the rendered page: for every pixel of the viewport at scroll 0,
the neighborhood a tap there picks (points outside the map's box pick none and are skipped) (document.elementFromPoint, then the nearest element that names a neighborhood,
exactly as static/map.js reads a tap), and for each neighborhood the largest square of pixels that all pick it.

Used by tests/test_pages_thumb.py in Chromium, WebKit and Gecko (tests/engines.py)."""
from __future__ import annotations

# The hit grid: every `step` px (1: every pixel), sampled at the pixel's middle. Returns, for each neighborhood,
# [side of its largest square in px, the square's centre x, y]; and what the page looked like (scroll, size).
SQUARES_JS = """(step) => {
  step = step || 1;
  const stage = document.getElementById('map');
  const W = document.documentElement.clientWidth, H = innerHeight;
  const cols = Math.floor(W / step), rows = Math.floor(H / step);
  // Only the points over the map's own box (an <svg> clips what it draws): the rest of the screen picks nothing.
  const box = stage.getBoundingClientRect();
  const c0 = Math.max(0, Math.floor(box.left / step)), c1 = Math.min(cols, Math.ceil(box.right / step));
  const r0 = Math.max(0, Math.floor(box.top / step)), r1 = Math.min(rows, Math.ceil(box.bottom / step));
  const ids = [], index = {};
  let prev = new Int32Array(cols), cur = new Int32Array(cols), prevOwn = new Int32Array(cols).fill(-1), curOwn = new Int32Array(cols).fill(-1);
  const best = {};
  for (let r = r0; r < r1; r++) {
    for (let c = c0; c < c1; c++) {
      const e = document.elementFromPoint(c * step + step / 2, r * step + step / 2);
      const g = e && e.closest ? e.closest('[data-nb]') : null;
      let o = -1;
      if (g && stage.contains(g)) {
        const nb = g.getAttribute('data-nb');
        if (!(nb in index)) { index[nb] = ids.length; ids.push(nb); }
        o = index[nb];
      }
      curOwn[c] = o;
      if (o < 0) { cur[c] = 0; continue; }
      const left = c > 0 && curOwn[c - 1] === o ? cur[c - 1] : 0;
      const up = prevOwn[c] === o ? prev[c] : 0;
      const diag = c > 0 && prevOwn[c - 1] === o ? prev[c - 1] : 0;
      const k = 1 + Math.min(left, up, diag);
      cur[c] = k;
      const nb = ids[o];
      if (!best[nb] || k > best[nb][0]) best[nb] = [k, c, r];
    }
    [prev, cur] = [cur, prev];
    [prevOwn, curOwn] = [curOwn, prevOwn];
  }
  const out = {};
  for (const nb in best) {
    const [k, c, r] = best[nb];
    out[nb] = [k * step, (c + 1 - k / 2) * step, (r + 1 - k / 2) * step];
  }
  return {squares: out, scroll: [scrollX, scrollY], size: [W, H]};
}"""

# The size on screen (px) of each neighborhood's number, and of the numbers on the pieces (bids, buildings).
SIZES_JS = """() => {
  const px = t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
  const W = document.documentElement.clientWidth, H = innerHeight;
  const seen = t => { const r = t.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= W && r.bottom <= H; };
  const labels = {}, pieces = {};
  document.querySelectorAll('#map text.nid').forEach(t => {
    const nb = t.getAttribute('data-label-of') || t.closest('[data-nb]').getAttribute('data-nb');
    if (getComputedStyle(t).display === 'none' || getComputedStyle(t).visibility === 'hidden') return;
    labels[nb] = Math.max(labels[nb] || 0, seen(t) ? px(t) : 0);
  });
  document.querySelectorAll('#map .bv, #map .pv').forEach(t => {
    const nb = t.closest('[data-bid-of],[data-building-of]');
    const id = nb.getAttribute('data-bid-of') || nb.getAttribute('data-building-of');
    pieces[id] = seen(t) ? px(t) : 0;
  });
  return {labels, pieces};
}"""
