// catansim game viewer: draws the data of catansim.viewer.frames.game_view (embedded in
// the page as JSON) step by step. It applies no rule: every state comes from the data.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("game-data").textContent);
  const N = D.events.length;
  const NP = D.n_players;
  const SF = Object.fromEntries(D.seat_fields.map((f, i) => [f, i]));
  const GF = Object.fromEntries(D.global_fields.map((f, i) => [f, i]));
  const NODES = D.board.nodes.length, EDGES = D.board.edges.length;
  const SVGNS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  // Every text of the data that reaches innerHTML goes through esc: a log's strategy
  // names are anyone's strings.
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;",
    ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

  // ---- every step's full state, rebuilt once from the changes ---------------------------
  const seatRows = [], globalRows = [];
  const nodeSeat = new Int8Array(Math.max(N, 1) * NODES).fill(-1);
  const nodeLevel = new Int8Array(Math.max(N, 1) * NODES);
  const edgeSeat = new Int8Array(Math.max(N, 1) * EDGES).fill(-1);
  {
    let seats = Array.from({length: NP}, () => new Array(D.seat_fields.length).fill(0));
    let glob = new Array(D.global_fields.length).fill(-1);
    for (let k = 0; k < N; k++) {
      const s = D.steps[k];
      if (k > 0) {
        nodeSeat.copyWithin(k * NODES, (k - 1) * NODES, k * NODES);
        nodeLevel.copyWithin(k * NODES, (k - 1) * NODES, k * NODES);
        edgeSeat.copyWithin(k * EDGES, (k - 1) * EDGES, k * EDGES);
      }
      if (s.seats) {
        seats = seats.slice();
        for (const row of s.seats) seats[row[0]] = row.slice(1);
      }
      if (s.globals) glob = s.globals;
      for (const [n, p, lv] of s.pieces || []) {
        nodeSeat[k * NODES + n] = p;
        nodeLevel[k * NODES + n] = lv;
      }
      for (const [e, p] of s.roads || []) edgeSeat[k * EDGES + e] = p;
      seatRows.push(seats);
      globalRows.push(glob);
    }
  }
  // dice sums, cumulative production per seat, the turn each step belongs to
  const rollAt = new Int8Array(N), producedCum = [], turnStart = new Int32Array(N);
  {
    const cum = new Array(NP).fill(0);
    let start = 0;
    D.events.forEach((ev, k) => {
      if (ev.e === "turn_start") start = k;
      turnStart[k] = start;
      if (ev.e === "roll") rollAt[k] = ev.dice[0] + ev.dice[1];
      if (ev.e === "production") {
        ev.gains.forEach((g, p) => { cum[p] += g.reduce((a, b) => a + b, 0); });
      }
      producedCum.push(cum.slice());
    });
  }
  const outcome = (() => {
    const end = D.events[N - 1];
    if (!end || end.e !== "game_end") return "the log ends without game_end";
    if (end.winner === null) return `turn limit after ${end.turn} turns: no winner`;
    return `${D.colours[end.winner]} (seat ${end.winner}) wins on turn ${end.turn}`;
  })();

  // ---- the board ------------------------------------------------------------------------
  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  const board = $("board");
  const P = D.palette;
  const corner = (x, y, k, r) => {
    const a = Math.PI / 180 * (60 * k - 30);
    return [x + r * Math.cos(a), y + r * Math.sin(a)];
  };
  const hexPoints = (x, y, r) =>
    [0, 1, 2, 3, 4, 5].map((k) => corner(x, y, k, r).map((v) => v.toFixed(3)).join(",")).join(" ");
  el("polygon", {points: hexPoints(0, 0, 5.3).split(" ").map((p) => {
    const [x, y] = p.split(",").map(Number); return `${y},${x}`;
  }).join(" "), fill: P.sea}, board);
  for (const h of D.board.hexes) {
    el("polygon", {points: hexPoints(h.x, h.y, 0.98), fill: P.terrains[h.terrain],
      stroke: "#f5ecd4", "stroke-width": 0.06}, board);
    if (h.number !== null) {
      el("circle", {cx: h.x, cy: h.y, r: 0.34, fill: P.disc, stroke: "#5d4a2f",
        "stroke-width": 0.03}, board);
      const red = h.number === 6 || h.number === 8;
      const t = el("text", {x: h.x, y: h.y + 0.05, "text-anchor": "middle",
        "font-size": red ? 0.34 : 0.3, "font-weight": "bold",
        fill: red ? P.red_number : "#222"}, board);
      t.textContent = h.number;
      const pips = el("text", {x: h.x, y: h.y + 0.24, "text-anchor": "middle",
        "font-size": 0.16, fill: red ? P.red_number : "#222"}, board);
      pips.textContent = "•".repeat(h.pips);
    }
  }
  for (const hb of D.board.harbors) {
    const [a, b] = D.board.edges[hb.edge];
    for (const n of [a, b]) {
      el("line", {x1: hb.x, y1: hb.y, x2: D.board.nodes[n][0], y2: D.board.nodes[n][1],
        stroke: "#7a5a32", "stroke-width": 0.07}, board);
    }
    const any = hb.kind === "any";
    el("circle", {cx: hb.x, cy: hb.y, r: 0.3, fill: "#ffffff",
      stroke: any ? "#333" : P.terrains[D.terrain_of[hb.kind]], "stroke-width": any ? 0.03 : 0.09},
    board);
    const t = el("text", {x: hb.x, y: hb.y + (any ? 0.07 : 0.01), "text-anchor": "middle",
      "font-size": 0.19, "font-weight": "bold", fill: "#222"}, board);
    t.textContent = any ? "3:1" : "2:1";
    if (!any) {
      const kind = el("text", {x: hb.x, y: hb.y + 0.17, "text-anchor": "middle",
        "font-size": 0.12, fill: "#222"}, board);
      kind.textContent = hb.kind;
    }
    const title = el("title", {}, t);
    title.textContent = any ? "harbor 3:1" : `harbor 2:1 ${hb.kind}`;
  }
  // Each road is drawn over a dark outline (a wider line beneath it): a white road on the
  // cream border between two hexes stays visible.
  const roadEls = D.board.edges.map(([a, b]) => {
    const [x1, y1] = D.board.nodes[a], [x2, y2] = D.board.nodes[b];
    const f = 0.18;
    const ends = {x1: x1 + f * (x2 - x1), y1: y1 + f * (y2 - y1), x2: x2 - f * (x2 - x1),
      y2: y2 - f * (y2 - y1), "stroke-linecap": "round"};
    const outline = el("line", {...ends, stroke: "#222", "stroke-width": 0.27,
      display: "none", class: "road-outline"}, board);
    const road = el("line", {...ends, stroke: "none", "stroke-width": 0.17, class: "road"}, board);
    return {road, outline};
  });
  // with the rule robber = off the robber is not in the game: not drawn
  const robber = el("g", {class: "robber", display: D.rules.robber === "off" ? "none" : "inline"},
    board);
  el("ellipse", {cx: 0, cy: 0.08, rx: 0.16, ry: 0.24, fill: "#333", stroke: "#eee",
    "stroke-width": 0.03}, robber);
  el("circle", {cx: 0, cy: -0.2, r: 0.12, fill: "#333", stroke: "#eee", "stroke-width": 0.03},
    robber);
  const house = (x, y, s) => [[0, -1.2], [1, -0.4], [1, 0.8], [-1, 0.8], [-1, -0.4]]
    .map(([dx, dy]) => `${(x + s * dx).toFixed(3)},${(y + s * dy).toFixed(3)}`).join(" ");
  const city = (x, y, s) => [[-1.4, 0.8], [-1.4, -0.4], [-0.7, -1.2], [0, -0.4], [1.4, -0.4],
    [1.4, 0.8]].map(([dx, dy]) => `${(x + s * dx).toFixed(3)},${(y + s * dy).toFixed(3)}`)
    .join(" ");
  const nodeEls = D.board.nodes.map(([x, y]) => ({
    settlement: el("polygon", {points: house(x, y, 0.17), stroke: "#111",
      "stroke-width": 0.035, display: "none"}, board),
    city: el("polygon", {points: city(x, y, 0.17), stroke: "#111", "stroke-width": 0.035,
      display: "none"}, board),
  }));

  // ---- seat panels -------------------------------------------------------------------------
  const seatsBox = $("seats");
  const panels = [];
  for (let p = 0; p < NP; p++) {
    const sec = document.createElement("section");
    sec.className = "seat";
    sec.dataset.seat = p;
    sec.style.borderColor = P.seats[p];
    sec.innerHTML = `<h3><span class="swatch" style="background:${esc(P.seats[p])}"></span>` +
      `${esc(D.colours[p])} <small>seat ${p} · ${esc(D.strategies[p])}</small>` +
      `<span class="vp" title="victory points"></span></h3>` +
      `<div class="cards"></div><div class="devs"></div><div class="pieces"></div>` +
      `<div class="tiles"></div>`;
    seatsBox.appendChild(sec);
    panels.push(sec);
  }
  const showAll = $("show-all");
  const DEV_LABEL = {knight: "Knight", victory_point: "VP", road_building: "Road Building",
    invention: "Invention", monopoly: "Monopoly"};

  function renderSeat(p, row, glob, all) {
    const sec = panels[p];
    const hand = D.resources.map((r) => row[SF["hand_" + r]]);
    const devs = D.dev_cards.map((c) => row[SF["dev_" + c]]);
    const handSize = hand.reduce((a, b) => a + b, 0);
    const devCount = devs.reduce((a, b) => a + b, 0);
    const vis = row[SF.vp_visible], total = row[SF.vp_total];
    sec.dataset.vpVisible = vis;
    sec.dataset.vpTotal = total;
    sec.dataset.handSize = handSize;
    sec.dataset.devCount = devCount;
    sec.classList.toggle("active", glob[GF.active] === p);
    sec.querySelector(".vp").textContent = all && total !== vis
      ? `${total} VP (${vis} shown)` : `${vis} VP`;
    sec.querySelector(".cards").innerHTML = all
      ? `<b>${esc(handSize)}</b> cards: ` + D.resources.map((r, i) =>
        `<span class="res"><span class="swatch" style="background:` +
        `${esc(P.terrains[D.terrain_of[r]])}"></span>${esc(r)} ${esc(hand[i])}</span>`).join(" ")
      : `<b>${esc(handSize)}</b> resource card${handSize === 1 ? "" : "s"} (hidden)`;
    const knights = `<span class="phrase">knights played ${esc(row[SF.knights])}</span>`;
    sec.querySelector(".devs").innerHTML = all
      ? `<b>${esc(devCount)}</b> development: ` + (devCount ? D.dev_cards.map((c, i) => devs[i]
        ? `${esc(DEV_LABEL[c] || c)} ${esc(devs[i])}` : "").filter(Boolean).join(", ")
        : "none") + ` · ${knights}`
      : `<b>${esc(devCount)}</b> development card${devCount === 1 ? "" : "s"} (hidden)` +
        ` · ${knights}`;
    sec.querySelector(".pieces").innerHTML =
      `<span class="phrase">left: ${esc(row[SF.roads_left])} roads, ` +
      `${esc(row[SF.settlements_left])} settlements, ${esc(row[SF.cities_left])} cities</span>` +
      ` · <span class="phrase">longest route ${esc(row[SF.route_length])}</span>`;
    const tiles = [];
    if (glob[GF.longest_route] === p) tiles.push("Longest Route");
    if (glob[GF.largest_army] === p) tiles.push("Largest Army");
    sec.querySelector(".tiles").innerHTML = tiles.map((t) => `<span class="tile">${esc(t)}</span>`)
      .join(" ");
  }

  // ---- charts ------------------------------------------------------------------------------
  const diceSvg = $("dice-chart"), prodSvg = $("production-chart");
  function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }
  function text(svg, x, y, s, attrs) {
    const t = el("text", Object.assign({x, y, "font-size": 10}, attrs || {}), svg);
    t.textContent = s;
    return t;
  }
  function renderDice(k) {
    clear(diceSvg);
    const counts = new Array(13).fill(0);
    let rolls = 0;
    for (let i = 0; i <= k; i++) if (rollAt[i]) { counts[rollAt[i]]++; rolls++; }
    const W = 300, H = 150, x0 = 24, y0 = 125, bw = 22;
    const prob = (s) => (6 - Math.abs(s - 7)) / 36;
    const top = Math.max(1, ...counts, rolls * prob(7));
    for (let s = 2; s <= 12; s++) {
      const x = x0 + (s - 2) * (bw + 3), h = (counts[s] / top) * 100;
      el("rect", {x, y: y0 - h, width: bw, height: h, fill: s === 7 ? "#555" : "#8d6e63",
        class: "bar", "data-sum": s, "data-count": counts[s]}, diceSvg);
      const e = (rolls * prob(s) / top) * 100;
      el("line", {x1: x, x2: x + bw, y1: y0 - e, y2: y0 - e, stroke: "#1e88e5",
        "stroke-width": 2}, diceSvg);
      text(diceSvg, x + bw / 2, y0 + 12, s, {"text-anchor": "middle"});
      if (counts[s]) text(diceSvg, x + bw / 2, y0 - h - 2, counts[s], {"text-anchor": "middle",
        "font-size": 9});
    }
    text(diceSvg, 4, 11, `dice: ${rolls} rolls (bars), expected (blue lines)`);
    diceSvg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  }
  function renderLines(svg, k, series, label) {
    clear(svg);
    const W = 300, H = 150, x0 = 26, y0 = 130, w = 264, h = 110;
    const top = Math.max(1, ...series.map((s) => Math.max(...s)));
    const X = (i) => x0 + (N > 1 ? (i / (N - 1)) * w : 0), Y = (v) => y0 - (v / top) * h;
    el("line", {x1: x0, x2: x0 + w, y1: y0, y2: y0, stroke: "#999"}, svg);
    text(svg, x0 - 4, Y(top) + 4, top, {"text-anchor": "end"});
    text(svg, x0 - 4, y0, 0, {"text-anchor": "end"});
    series.forEach((s, p) => {
      const pts = (upto) => s.slice(0, upto + 1).map((v, i) => `${X(i).toFixed(1)},` +
        `${Y(v).toFixed(1)}`).join(" ");
      el("polyline", {points: pts(N - 1), fill: "none", stroke: P.seats[p], "stroke-width": 1,
        opacity: 0.25}, svg);
      el("polyline", {points: pts(k), fill: "none", stroke: P.seats[p], "stroke-width": 2.2,
        class: "series"}, svg);
    });
    el("line", {x1: X(k), x2: X(k), y1: y0, y2: y0 - h, stroke: "#444",
      "stroke-dasharray": "3,3"}, svg);
    text(svg, 4, 11, label);
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  }
  const produced = Array.from({length: NP}, (_, p) => producedCum.map((c) => c[p]));
  const vpSeries = (field) => Array.from({length: NP}, (_, p) =>
    seatRows.map((rows) => rows[p][SF[field]]));
  const vpShown = vpSeries("vp_visible"), vpAll = vpSeries("vp_total");
  // Light seats (white) get a dark outline in the charts' legend.
  $("legend").innerHTML = D.colours.map((c, p) => `<span><span class="swatch" ` +
    `style="background:${esc(P.seats[p])}"></span>${esc(c)}</span>`).join(" ");

  // ---- the step -----------------------------------------------------------------------------
  const slider = $("slider");
  slider.max = Math.max(0, N - 1);
  let step = 0, timer = null;
  // Other scripts of the page (a review's timeline, static/review.js) follow the step
  // through onStep (called after every render) and move it through go.
  const stepWatchers = [];
  window.catansimViewer = {
    data: D,
    esc,
    el,
    turn: (k) => globalRows[k][GF.turn],
    go: (k) => go(k),
    onStep: (fn) => { stepWatchers.push(fn); if (N > 0) fn(step); },
  };

  function render() {
    const k = step, all = showAll.checked;
    document.body.dataset.step = k;
    slider.value = k;
    const glob = globalRows[k], rows = seatRows[k];
    for (let p = 0; p < NP; p++) renderSeat(p, rows[p], glob, all);
    for (let n = 0; n < NODES; n++) {
      const s = nodeSeat[k * NODES + n], lv = nodeLevel[k * NODES + n];
      const ne = nodeEls[n];
      ne.settlement.setAttribute("display", s >= 0 && lv === 1 ? "inline" : "none");
      ne.city.setAttribute("display", s >= 0 && lv === 2 ? "inline" : "none");
      if (s >= 0) { ne.settlement.setAttribute("fill", P.seats[s]); ne.city.setAttribute("fill", P.seats[s]); }
    }
    for (let e = 0; e < EDGES; e++) {
      const s = edgeSeat[k * EDGES + e];
      roadEls[e].road.setAttribute("stroke", s >= 0 ? P.seats[s] : "none");
      roadEls[e].outline.setAttribute("display", s >= 0 ? "inline" : "none");
    }
    const rh = D.board.hexes[glob[GF.robber]];
    robber.setAttribute("transform", `translate(${rh.x + 0.45},${rh.y - 0.1})`);
    robber.setAttribute("data-hex", glob[GF.robber]);
    const ev = D.events[k];
    const turn = glob[GF.turn];
    $("position").textContent = `event ${k + 1} of ${N} · ` +
      (turn > 0 ? `turn ${turn}` : "set-up") + ` · ${ev.e}`;
    const lines = [];
    for (let i = Math.max(turnStart[k], k - 11); i <= k; i++) {
      lines.push(`<li class="${i === k ? "current" : ""}">${esc(turnLine(i, k))}</li>`);
    }
    $("narrative").innerHTML = lines.join("");
    $("current-line").textContent = D.text[k];
    const supply = D.resources.map((r) => glob[GF["supply_" + r]]);
    $("supply").textContent = (supply[0] < 0 ? "supply: unlimited" : "supply: " +
      D.resources.map((r, i) => `${r} ${supply[i]}`).join(", ")) +
      ` · development deck ${glob[GF.dev_deck]}`;
    renderDice(k);
    renderLines(prodSvg, k, produced, "resource cards produced (all rolls so far)");
    renderLines($("vp-chart"), k, all ? vpAll : vpShown,
      all ? "victory points (hidden cards included)" : "victory points (visible)");
    try { history.replaceState(null, "", "#step=" + k); } catch (err) { /* srcdoc frames */ }
    for (const fn of stepWatchers) fn(k);
  }
  // A line of the turn's box: the turn's heading is its first line, so the roll that
  // repeats it ("Turn 12 — blue (seat 1) rolls 4+4 = 8") shows only the dice.
  function turnLine(i, k) {
    const head = D.text[turnStart[k]];
    const t = D.text[i];
    return i > turnStart[k] && t.startsWith(head + " ") ? t.slice(head.length + 1) : t;
  }
  function go(k) {
    step = Math.min(Math.max(0, k), N - 1);
    render();
  }
  function nextTurn() {
    for (let i = step + 1; i < N; i++) if (D.events[i].e === "turn_start") return go(i);
    go(N - 1);
  }
  function prevTurn() {
    const start = turnStart[step] < step ? turnStart[step] : turnStart[Math.max(0, step - 1)];
    go(start);
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶ play"; return; }
    if (step >= N - 1) go(0);
    $("play").textContent = "⏸ pause";
    timer = setInterval(() => {
      if (step >= N - 1) { play(); return; }
      go(step + 1);
    }, Number($("speed").value));
  }
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(step - 1);
  $("next").onclick = () => go(step + 1);
  $("last").onclick = () => go(N - 1);
  $("prev-turn").onclick = prevTurn;
  $("next-turn").onclick = nextTurn;
  $("play").onclick = play;
  slider.oninput = () => go(Number(slider.value));
  showAll.onchange = render;
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" && e.target.type !== "checkbox") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "PageDown") nextTurn();
    else if (e.key === "PageUp") prevTurn();
  });
  $("title").textContent = D.title;
  $("outcome").textContent = outcome;
  const m = /step=(\d+)/.exec(location.hash);
  if (N > 0) go(m ? Number(m[1]) : 0);
})();
