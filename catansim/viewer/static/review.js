// catansim game viewer, a game's review: draws the data of catansim.viewer.review
// (embedded in the page as JSON) with the game: each seat's chance of winning through the
// game under the board, its interval as a band, a cursor at the viewer's step, and the
// moves flagged, marked on the timeline and listed. It follows the viewer's step and
// moves it through window.catansimViewer (static/viewer.js).
(function () {
  "use strict";
  const V = window.catansimViewer;
  const R = JSON.parse(document.getElementById("review-data").textContent);
  const D = V.data, N = D.events.length, NP = D.n_players, P = D.palette;
  const $ = (id) => document.getElementById(id);
  const esc = V.esc, el = V.el;
  const where = (k) => { const t = V.turn(k); return t > 0 ? `turn ${t}` : "set-up"; };
  const pct = (v) => `${Math.round(100 * v)}%`;
  // percentage points of a chance; a flagged move's loss is above 0, shown "−Z points"
  const points = (v) => (v < 0 ? "−" : "") + Math.abs(100 * v).toFixed(1);
  const swatch = (p) => `<span class="swatch" style="background:${esc(P.seats[p])}"></span>`;
  const seatName = (p) => `${esc(D.colours[p])} (seat ${p})`;
  const flagged = R.moves ? R.moves.flagged : [];

  // ---- the timeline ------------------------------------------------------------------------
  const svg = $("timeline");
  const W = 720, H = 200, x0 = 40, x1 = W - 12, yTop = 16, yBot = H - 30;
  const X = (k) => x0 + (N > 1 ? k / (N - 1) : 0) * (x1 - x0);
  // the chance axis ends at the quarter above the highest interval: 4 seats' chances of
  // about 25% are not pressed into the bottom of the chart
  const top = !R.timeline ? 1 : Math.min(1, Math.max(0.5, Math.ceil(4 * Math.max(
    ...R.timeline.seats.flat().map((pt) => pt[3])) - 1e-9) / 4));
  const Y = (v) => yBot - (v / top) * (yBot - yTop);
  let cursor = null;
  if (svg) {
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const T = R.timeline;
    el("rect", {x: x0, y: yTop, width: x1 - x0, height: yBot - yTop, fill: "#fff",
      stroke: "#bbb"}, svg);
    const tick = top > 0.5 ? 0.25 : 0.1;
    for (let i = 0; i * tick <= top + 1e-9; i++) {
      const v = i * tick;
      el("line", {x1: x0, x2: x1, y1: Y(v), y2: Y(v), stroke: i ? "#e4e4e4" : "#bbb"}, svg);
      el("text", {x: x0 - 5, y: Y(v) + 4, "text-anchor": "end", "font-size": 11,
        fill: "#444"}, svg).textContent = pct(v);
    }
    // the turns on the x axis, one label in every `every` turns so that none overlap
    const starts = [];
    D.events.forEach((ev, k) => { if (ev.e === "turn_start") starts.push([k, ev.turn]); });
    const every = [1, 2, 5, 10, 20, 50, 100, 200].find((s) => starts.length / s <= 16) || 500;
    for (const [k, t] of starts) {
      if (t % every) continue;
      el("line", {x1: X(k), x2: X(k), y1: yBot, y2: yBot + 4, stroke: "#888"}, svg);
      el("text", {x: X(k), y: yBot + 15, "text-anchor": "middle", "font-size": 11,
        fill: "#444"}, svg).textContent = t;
    }
    el("text", {x: x0 - 5, y: yBot + 15, "text-anchor": "end", "font-size": 11,
      fill: "#444"}, svg).textContent = "turn";
    // Light seats (white) get a grey band, and every line a dark casing: each seat's
    // line shows on the white plot.
    const light = (c) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16) / 255);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.7;
    };
    const line = (pts) => pts.map(([k, w]) => `${X(k).toFixed(1)},${Y(w).toFixed(1)}`).join(" ");
    T.seats.forEach((pts, p) => {
      if (!pts.length) return;
      const band = [...pts.map(([k, , lo]) => [k, lo]),
        ...pts.slice().reverse().map(([k, , , hi]) => [k, hi])];
      el("polygon", {points: line(band), fill: light(P.seats[p]) ? "#777" : P.seats[p],
        "fill-opacity": 0.16, stroke: "none", class: "band", "data-seat": p}, svg);
    });
    T.seats.forEach((pts, p) => {
      if (!pts.length) return;
      const xy = line(pts.map(([k, w]) => [k, w]));
      el("polyline", {points: xy, fill: "none", stroke: "#222", "stroke-width": 3.6,
        "stroke-linejoin": "round", opacity: 0.85}, svg);
      el("polyline", {points: xy, fill: "none", stroke: P.seats[p], "stroke-width": 2,
        "stroke-linejoin": "round", class: "series", "data-seat": p}, svg);
    });
    const dense = T.seats.some((pts) => pts.length > 120);
    T.seats.forEach((pts, p) => {
      for (const [k, w, lo, hi] of pts) {
        const c = el("circle", {cx: X(k), cy: Y(w), r: dense ? 1.4 : 2.6, fill: P.seats[p],
          stroke: "#222", "stroke-width": 0.8, class: "point", "data-seat": p,
          "data-event": k, "data-win": w}, svg);
        el("title", {}, c).textContent = `${D.colours[p]}, event ${k + 1} (${where(k)}): ` +
          `${pct(w)} (${pct(lo)} to ${pct(hi)})`;
      }
    });
    // each flagged move: a dotted line at its event and a mark above the plot
    for (const m of flagged) {
      const x = X(m.event);
      el("line", {x1: x, x2: x, y1: yTop, y2: yBot, stroke: "#7a1f1f", "stroke-width": 1,
        "stroke-dasharray": "2,3"}, svg);
      const mark = el("polygon", {points: `${x - 5},${yTop - 12} ${x + 5},${yTop - 12} ${x},` +
        `${yTop - 2}`, fill: P.seats[m.seat], stroke: "#7a1f1f", "stroke-width": 1.5,
      class: "flag", "data-event": m.event}, svg);
      el("title", {}, mark).textContent = `${where(m.event)}, ${D.colours[m.seat]}: ` +
        `played ${m.played}, best ${m.best}, −${points(m.loss)} points`;
    }
    cursor = el("line", {x1: x0, x2: x0, y1: yTop - 2, y2: yBot, stroke: "#3e2f1c",
      "stroke-width": 1.6, class: "cursor"}, svg);
    // pressing on the timeline (and dragging along it) moves to the event under the pointer
    const eventAt = (e) => {
      const pt = svg.createSVGPoint();
      pt.x = e.clientX; pt.y = e.clientY;
      const q = pt.matrixTransform(svg.getScreenCTM().inverse());
      return Math.min(N - 1, Math.max(0, Math.round((q.x - x0) / (x1 - x0) * (N - 1))));
    };
    let dragging = false;
    svg.addEventListener("pointerdown", (e) => {
      const flag = e.target.closest(".flag");
      V.go(flag ? Number(flag.dataset.event) : eventAt(e));
      if (!flag) { dragging = true; svg.setPointerCapture(e.pointerId); }
    });
    svg.addEventListener("pointermove", (e) => { if (dragging) V.go(eventAt(e)); });
    svg.addEventListener("pointerup", () => { dragging = false; });
    const who = T.observer < 0 ? "the full state (every hand as the log has it)"
      : `the public information of ${seatName(T.observer)}`;
    const [fewest, most] = T.rollouts;
    const phrase = (s) => `<span class="phrase">${s}</span>`;
    $("review-caption").innerHTML = `<b>Chance of winning</b> ` +
      `${phrase("(95% interval shaded)")}, from ${who}; ` +
      phrase(`${fewest === most ? esc(fewest) : `${esc(fewest)} to ${esc(most)}`} rollouts ` +
        "a position") + ". " + (flagged.length ? `${phrase("▼ a flagged move")}; ` : "") +
      phrase("click or drag to move") + ".";
  }

  // the chances at the step: each seat's at the last position analysed up to it
  function renderNow(k) {
    const T = R.timeline;
    const at = T.seats.map((pts) => {
      let last = null;
      for (const pt of pts) if (pt[0] <= k) last = pt;
      return last;
    });
    const known = at.filter(Boolean);
    const box = $("review-now");
    if (!known.length) {
      box.textContent = "No position analysed up to this event.";
      return;
    }
    const from = Math.max(...known.map((pt) => pt[0]));
    box.innerHTML = (from === k ? "At this event: " : `As analysed after event ${from + 1}: `) +
      at.map((pt, p) => pt ? `<span class="phrase">${swatch(p)}${esc(D.colours[p])} ` +
        `<b>${pct(pt[1])}</b> (${pct(pt[2])} to ${pct(pt[3])})</span>` : "")
        .filter(Boolean).join(" · ");
  }

  // ---- the moves flagged --------------------------------------------------------------------
  const list = $("flagged");
  if (list) {
    const M = R.moves;
    const whose = M.seats.map((p) => `${D.colours[p]} (seat ${p})`).join(", ");
    $("flagged-caption").textContent = flagged.length
      ? `Moves flagged: ${flagged.length} of the ${M.decisions} decisions of ${whose} reviewed`
      : `No move flagged among the ${M.decisions} decisions of ${whose} reviewed`;
    list.innerHTML = flagged.map((m) => `<li data-event="${esc(m.event)}">` +
      `<button type="button" class="jump" data-event="${esc(m.event)}">` +
      `<span class="when">${esc(where(m.event))} · event ${esc(m.event + 1)} · ` +
      `${esc(m.decision)}</span><br>${swatch(m.seat)}` +
      `<span class="words">played ${esc(m.played)}, best ${esc(m.best)}, ` +
      `−${esc(points(m.loss))} points ` +
      `(${esc(points(m.loss_low))} to ${esc(points(m.loss_high))})</span></button></li>`)
      .join("");
    if (flagged.length) {
      list.insertAdjacentHTML("afterend", `<p class="note">Points: the seat's chance of ` +
        `winning, in percentage points, lost against the best option (95% interval); ` +
        `click a move to see it.</p>`);
    }
    list.addEventListener("click", (e) => {
      const b = e.target.closest("button.jump");
      if (b) V.go(Number(b.dataset.event));
    });
  }

  V.onStep((k) => {
    if (cursor) {
      cursor.setAttribute("x1", X(k));
      cursor.setAttribute("x2", X(k));
      cursor.setAttribute("data-event", k);
      renderNow(k);
    }
    if (list) {
      for (const li of list.children) li.classList.toggle("current", Number(li.dataset.event) === k);
    }
  });
})();
