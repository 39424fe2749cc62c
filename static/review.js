/* The Pi's review on this phone once the game is over (its own costliest decisions, with the call as it stood),
   and "What would the Pi do?" at its turn when the host allowed hints. Text and DOM nodes only, never HTML strings. */
import { M } from "./app.js";
var Review = (function () {
  var $ = M.$, tr = M.tr, el = M.el;
  var P = null;   /* the phone's part, on a phone (onPhone); the table screen has none */
  var review = null, fetching = false, hint = null;

  /* The review once the Pi has worked it out: 202 {pending} until then, asked again every 2 s. */
  function fetchReview(gameId, then) {
    if (review || fetching) return;
    fetching = true;
    M.api("GET", "/api/games/" + encodeURIComponent(gameId) + "/review").then(function (res) {
      if (res.ok && res.data && res.data.pending) { setTimeout(function () { fetching = false; then(); }, 2000); return; }
      fetching = false;
      if (res.ok) { review = res.data; then(); }
    });
  }

  function bidText(key, a) { return tr(key + "_bid", { value: a.value, nb: a.bid }); }
  function line(m, name) {   // name: the table screen's (each person by name); a phone speaks of its own as "you"
    var you = name ? (m.action.pass ? tr("review_they_passed", { name: name })
                      : tr("review_they_bid", { name: name, value: m.action.value, nb: m.action.bid }))
      : m.action.pass ? tr("review_you_passed") : bidText("review_you", m.action);
    var pi = m.better.pass ? tr("review_pi_passed") : bidText("review_pi", m.better);
    var cost = Math.max(1, Math.round(m.cost));
    return tr("review_line", { call: m.call, you: you, pi: pi, cost: cost });
  }
  function bids(m) {   // the call as it stood: its standing bids, in order
    var row = el("p", "small reviewbids", tr("review_call_then") + " ");
    (m.bids || []).forEach(function (b) {
      row.appendChild(M.chip(b.color));
      row.appendChild(document.createTextNode(" " + b.value + " · " + b.neighborhood + "  "));
    });
    if (!(m.bids || []).length) row.textContent = tr("review_opened");
    return row;
  }

  /* Drawn for one seat into `box`: the phone's own, or any the table screen is asked to show. */
  function seatReview(box, view, color, seat, onTable) {
    var head = el("h3", "");
    head.appendChild(M.chip(color));
    head.appendChild(document.createTextNode(" " + M.who(view, color)));
    box.appendChild(head);
    box.appendChild(el("p", "hint", tr("review_sum", { decisions: seat.decisions, lost: Math.round(seat.lost) })));
    if (!seat.marked.length) { box.appendChild(el("p", "", tr("review_none"))); return; }
    var list = el("ol", "reviewlist");
    seat.marked.forEach(function (m) {
      var li = el("li", "");
      li.appendChild(el("p", "", line(m, onTable ? M.who(view, color) : null)));
      li.appendChild(bids(m));
      list.appendChild(li);
    });
    box.appendChild(list);
  }

  function reviewBox(view) {
    var box = $("review");
    if (!box) {
      box = el("section", "box review");
      box.id = "review";
      $("end").parentNode.insertBefore(box, $("end").nextSibling);
    }
    var me = view.you && view.you.color;
    var on = view.phase === "finished" && !!me && !view.from_board;
    M.show(box, on);
    if (!on) return;
    fetchReview(P.gameId, function () { reviewBox(P.view); });
    box.textContent = "";
    box.appendChild(el("h2", "", tr("review_title")));
    var seat = review && review.seats[me];
    if (!review) box.appendChild(el("p", "hint", tr("review_wait")));
    else if (seat) seatReview(box, view, me, seat);
    else M.show(box, false);   // the Pi's own seat, or a seat nobody played
    if (view.host) {   // the host may show every seat's review on the table screen
      var b = el("button", "btn", tr(view.show_review ? "review_hide" : "review_show"));
      b.type = "button"; b.id = "review-show";
      b.onclick = function () { P.post("/review/show", { on: !P.view.show_review }); };
      box.appendChild(b);
      M.show(box, true);
    }
  }

  /* The table screen: every person's review in the end show's place, while the host shows it. */
  function tableReview(view) {
    var box = $("review");
    if (!box) {
      box = el("div", "review");
      box.id = "review";
      $("end").appendChild(box);
    }
    var on = view.phase === "finished" && !!view.show_review;
    M.show(box, on);
    M.show($("end-tally"), !on);
    if (!on) return;
    fetchReview(view.id, function () { tableReview(view); });
    box.textContent = "";
    box.appendChild(el("h2", "", tr("review_title")));
    if (!review) { box.appendChild(el("p", "hint", tr("review_wait"))); return; }
    var grid = el("div", "reviewseats");
    grid.style.display = "grid"; grid.style.gap = "0 2em";
    grid.style.gridTemplateColumns = "repeat(auto-fit, minmax(22em, 1fr))";
    Object.keys(review.seats).forEach(function (c) {
      var one = el("div", "reviewseat");
      seatReview(one, view, c, review.seats[c], true);
      grid.appendChild(one);
    });
    box.appendChild(grid);
  }

  function hintBox(view, online, busy) {
    var mine = view.phase === "playing" && view.you && view.to_act === view.you.color && !!view.legal;
    var b = $("hint-ask"), p = $("hint-text");
    if (!b) {
      b = el("button", "btn hintask", tr("hint_ask"));
      b.type = "button"; b.id = "hint-ask";
      p = el("p", "hint hinttext"); p.id = "hint-text"; p.setAttribute("role", "status");
      $("pass").parentNode.insertBefore(p, $("pass").nextSibling);
      $("pass").parentNode.insertBefore(b, p);
      b.onclick = function () {
        var at = P.view.actions;
        p.textContent = tr("hint_thinking"); M.show(p, true);
        P.post("/hint", {}).then(function (res) {
          hint = res && res.ok ? { at: at, text: res.data.because } : null;
          hintBox(P.view, P.online, false);
        });
      };
    }
    var allowed = mine && !!view.hints_allowed;
    M.show(b, allowed);
    b.disabled = !online || busy;
    if (hint && hint.at !== view.actions) hint = null;   // a decision was taken: the hint was for another turn
    M.show(p, allowed && (!!hint || busy));
    if (hint) p.textContent = hint.text;
  }

  /* On the tally: the hints each seat asked, when the host allowed them. */
  function hintsTally(view, within) {
    var old = $("hints-tally");
    if (old) old.parentNode.removeChild(old);
    var asked = (view.players || []).filter(function (p) { return p.hints; });
    if (view.phase !== "finished" || !view.hints_allowed || !asked.length || !within) return;
    var line = el("p", "hint");
    line.id = "hints-tally";
    line.textContent = asked.map(function (p) { return M.who(view, p.color) + ": " + tr("hints_count", { count: p.hints }); }).join(", ");
    within.appendChild(line);
  }

  return {
    onPhone: function (phone) {
      P = phone;
      P.onRender(function (view, online, busy) { hintsTally(view, $("end")); reviewBox(view); hintBox(view, online, busy); });
    },
    onTable: function (view) { tableReview(view); hintsTally(view, $("end")); }
  };
})();
export { Review };
