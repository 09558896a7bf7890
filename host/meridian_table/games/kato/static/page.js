// Kato's Meridians on the table page: the column letters (A, B, ... the first half of
// each point's name) drawn above and below each column, so "G6" can be found at a
// glance. The points' own names are in their labels (and said by screen readers).
"use strict";
(() => {
  // Each column's two end points, and a spot just beyond each end along the column's
  // own line (the columns run along one of the grid's three directions, not upright).
  function columns(ctx) {
    const byLetter = new Map();
    ctx.pts.forEach((p) => {
      const letter = /^[A-Z]+/.exec(p.id);
      if (!letter) return;
      if (!byLetter.has(letter[0])) byLetter.set(letter[0], []);
      byLetter.get(letter[0]).push(p);
    });
    const out = new Map();
    for (const [letter, points] of byLetter) {
      const index = (p) => Number(p.id.slice(letter.length)) || 0;
      points.sort((a, b) => index(a) - index(b));
      const first = points[0];
      const last = points[points.length - 1];
      let dx = 0;
      let dy = -1;
      if (points.length > 1) {
        const len = Math.hypot(last.x - first.x, last.y - first.y) || 1;
        dx = (last.x - first.x) / len;
        dy = (last.y - first.y) / len;
      }
      out.set(letter, {
        start: { x: first.x - dx * 0.55, y: first.y - dy * 0.55, n: index(first) },
        end: { x: last.x + dx * 0.55, y: last.y + dy * 0.55, n: index(last) },
      });
    }
    return out;
  }

  window.MeridianGames.register("kato", {
    extent(ctx) {
      const points = [];
      for (const col of columns(ctx).values()) points.push([col.start.x, col.start.y], [col.end.x, col.end.y]);
      return { points: points.map(([x, y]) => [x, y]), top: 0 };
    },
    drawUnder(layer, ctx) {
      // A column's name at both of its ends: "G1" is the first point from the G at one
      // end, the highest index the last one at the other.
      const g = ctx.svg("g", { class: "edge-names", "aria-hidden": "true" }, layer);
      for (const [letter, col] of columns(ctx)) {
        for (const [end, spot] of [["start", col.start], ["end", col.end]]) {
          ctx.svg("text", { class: "edge-name", x: spot.x, y: spot.y, "data-column": letter, "data-end": end }, g)
            .textContent = end === "start" ? `${letter}1` : letter;
        }
      }
    },
  });

  if (!document.querySelector("style[data-game='kato']")) {
    const style = document.createElement("style");
    style.dataset.game = "kato";
    style.textContent = ".edge-name { font-size: 0.3px; font-weight: 700; fill: #3d2c14; text-anchor: middle; dominant-baseline: central; pointer-events: none; }";
    document.head.append(style);
  }
})();
