/* What to do on the real board since a person last said it was done (issue 40): each Pi move ("put a red 7 on
   C05"), each call's end (turn the winner's piece over, bids back, token and cards), in order, from the view's
   board_pending; "Done on the board" confirms what this screen showed. DOM nodes and text only. */
import { M } from "./app.js";
import { G } from "./glance.js";
var B = (function () {
  var tr = M.tr, term = M.term, el = M.el, who = M.who;

  /* One move that puts the board back after an undo (companion/table/board_steps.py undo_moves). */
  function undoMove(view, m) {
    if (m.do === "card") return m.color ? M.sayOf(view, "undone_card", m.color, { card: tr("card_" + m.card) })
                                        : tr("undone_card_none", { card: tr("card_" + m.card) });
    var p = { value: m.value, nb: m.nb, color: term(m.color), token: m.token ? term(m.token) : "" };
    return M.isPi(view, m.color) ? tr("undo_" + m.do + "_pi", Object.assign({ player: who(view, m.color) }, p))
                                 : M.sayOf(view, "undo_" + m.do, m.color, p);   // "Take your 3 off C01" on one's own phone
  }
  /* An undo's step: what it took back, then each move ("For Pi Red (easy): take the red 7 off C05."). */
  function undoLines(view, s) {
    var taken = (s.taken || []).map(function (a) {
      var said = a.kind === "bid" ? M.sayOf(view, "log_bid", a.color, { value: a.value, nb: a.neighborhood })
                                  : M.sayOf(view, "log_pass", a.color);
      return view.you && view.you.color === a.color ? said.charAt(0).toLowerCase() + said.slice(1) : said;   // mid-sentence
    }).join("; ");
    return [M.cap(tr("board_undo", { actions: taken }))].concat(s.moves.map(function (m) { return M.cap(undoMove(view, m)); }));
  }

  /* One step's sentences, in the page's language. */
  function lines(view, s) {
    if (s.step === "undo") return undoLines(view, s);
    if (s.step === "bid") return [M.cap(tr("pi_bid", { player: who(view, s.color), value: s.value, nb: s.neighborhood, color: term(s.color) }))];
    if (s.step === "pass") return [M.cap(tr("pi_pass", { player: who(view, s.color) }))];
    var out = [M.cap(tr("call_built", { player: who(view, s.color), value: s.value, nb: s.neighborhood }))].concat(G.steps(view, s));
    if (s.finished) out.push(M.cap(tr("last_building_over", { player: who(view, s.color) })));
    return out;
  }

  /* The list in `node`, with its button when `onDone` is given (a seated person's screen). */
  function render(node, view, onDone) {
    var pending = view.board_pending || [];
    var on = pending.length > 0 && (view.phase === "playing" || view.phase === "finished");
    M.show(node, on);
    node.textContent = "";
    if (!on) return;
    node.appendChild(el("h2", "", tr("board_steps_title")));
    var ol = el("ol", "steps");
    pending.forEach(function (s) {
      var li = el("li", s.color ? "c-edge-" + s.color : "undo");
      var said = lines(view, s);
      if (s.step === "undo") {   // what the undo took back, quietly, then each move to make, one a line
        li.appendChild(el("p", "taken", said[0]));
        var moves = el("ul", "moves");
        said.slice(1).forEach(function (t) { moves.appendChild(el("li", "", t)); });
        li.appendChild(moves);
      } else said.forEach(function (t, i) { li.appendChild(el(i ? "p" : "p", i ? "" : "big", t)); });
      ol.appendChild(li);
    });
    node.appendChild(ol);
    if (onDone && view.phase === "playing") {
      var b = el("button", "btn primary big", tr("board_done"));
      b.type = "button";
      b.id = "board-done";
      var through = pending[pending.length - 1].seq;
      b.onclick = function () { b.disabled = true; onDone(through); };
      node.appendChild(b);
    }
  }

  /* The host's undo question with what it takes back (GET /api/games/<id>/undo): the Pi's moves since the person's
     action each as "Taken back too: … take the red 7 off C05"; `go` when the host confirms. */
  function askUndo(view, gameId, go) {
    M.api("GET", "/api/games/" + encodeURIComponent(gameId) + "/undo").then(function (res) {
      var text = G.undoQuestion(view);
      var acts = res.ok && res.data ? res.data.actions || [] : [];
      acts.slice(1).forEach(function (a) {
        text += "\n" + (a.kind === "bid" ? M.sayOf(view, "undone_also", a.color, { value: a.value, nb: a.neighborhood, color: term(a.color) })
                                         : M.sayOf(view, "undone_also_pass", a.color));
      });
      if (window.confirm(text)) go();
    });
  }

  return { lines: lines, render: render, askUndo: askUndo };
})();
export { B };
