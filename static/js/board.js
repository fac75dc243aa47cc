// Dominologist: the board and the bones, drawn as SVG. No dependencies, no build step.
//
//   renderBoard(svg, board, options)   draws the engine's board view (engine/board.py to_view())
//   renderBone(bone, options)          one bone as a small <svg> element, for hands and the yard
//   layoutBoard(board, aspect)         the geometry only (pure; used by renderBoard and by tests)
//
// Geometry: one unit is the short side of a bone (a bone is 2 x 1). The layout is centred on the
// spinner (or the lead when there is none). Four chains leave the centre: west (the engine's
// "left" end), east ("right"), north ("up") and south ("down"). Each chain runs straight until
// the next bone would leave its frame, then turns a corner and snakes back, in its own quadrant:
// west turns north, north turns east, east turns south, south turns west (a pinwheel), so the
// arms never cross. The frame is searched for the one that shows the bones largest in the
// container's aspect ratio; the viewBox is the bounds of what was laid out.

const SVGNS = "http://www.w3.org/2000/svg";
const S = 40; // SVG units per layout unit (the short side of a bone)

const DIRS = {
  E: { x: 1, y: 0, angle: 0 },
  S: { x: 0, y: 1, angle: 90 },
  W: { x: -1, y: 0, angle: 180 },
  N: { x: 0, y: -1, angle: 270 },
};
const REVERSE = { E: "W", W: "E", N: "S", S: "N" };

// English fallbacks only: the page passes translated strings through options.t.
const FALLBACK = {
  ends_total: "Ends: {n}",
  ends_total_help: "Ends total: the open ends added up. A multiple of {unit} scores.",
  end_left: "left",
  end_right: "right",
  end_up: "up",
  end_down: "down",
  end_target: "Play on the {end} end: shows {value}, counts {counts}",
  end_target_empty: "Play on the {end} end, adding nothing yet: shows {value}",
  board_label: "The board: {n} bones, ends total {total}",
  board_empty: "The board is empty: waiting for the lead",
  last_play: "Last play",
  spinner: "Spinner",
  bone_face_down: "Face-down bone",
};

function fmt(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

function makeT(options) {
  const t = options && typeof options.t === "function" ? options.t : null;
  return (key, params) => {
    let text = t ? t(key, params) : null;
    if (text == null || text === key) text = fmt(FALLBACK[key] ?? key, params);
    return text;
  };
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** "4-6" -> "6-4": the engine writes the higher half first. */
export function canonicalBone(text) {
  const [a, b] = String(text).split("-").map(Number);
  return a >= b ? `${a}-${b}` : `${b}-${a}`;
}

export function parseBone(text) {
  const [a, b] = String(text).split("-").map(Number);
  return { a, b, double: a === b, pips: a + b };
}

// ---------------------------------------------------------------------------------- pips

// Pip positions in a half, on a 3 x 3 grid (-1, 0, 1); standard patterns up to nine.
const PIPS = {
  0: [],
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]],
  7: [[-1, -1], [-1, 0], [-1, 1], [0, 0], [1, -1], [1, 0], [1, 1]],
  8: [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]],
  9: [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 0], [0, 1], [1, -1], [1, 0], [1, 1]],
};

function pipsMarkup(value, cx) {
  const g = S * 0.255;
  const r = value >= 7 ? S * 0.082 : S * 0.092;
  return (PIPS[value] || [])
    .map(([i, j]) => `<circle class="pip" cx="${(cx + i * g).toFixed(2)}" cy="${(j * g).toFixed(2)}" r="${r.toFixed(2)}" fill="#1c1c1c"/>`)
    .join("");
}

/** A bone's face in local coordinates: centred on 0,0, 2S long on x, halves a (left), b (right). */
function faceMarkup(a, b, opts = {}) {
  const inset = 1.2;
  const w = 2 * S - 2 * inset;
  const h = S - 2 * inset;
  const rx = S * 0.16;
  const fill = opts.fill || "#fbf8f0";
  return (
    `<rect class="bone-face" x="${-S + inset}" y="${-S / 2 + inset}" width="${w}" height="${h}" rx="${rx}" fill="${fill}" stroke="#5c5140" stroke-width="1.3"/>` +
    `<rect class="bone-sheen" x="${-S + inset + 2}" y="${-S / 2 + inset + 1.5}" width="${w - 4}" height="${h * 0.32}" rx="${rx * 0.7}" fill="#ffffff" opacity=".45"/>` +
    `<line class="bone-divider" x1="0" y1="${(-S * 0.34).toFixed(2)}" x2="0" y2="${(S * 0.34).toFixed(2)}" stroke="#6f6455" stroke-width="1.7" stroke-linecap="round"/>` +
    `<circle class="bone-pin" cx="0" cy="0" r="${(S * 0.055).toFixed(2)}" fill="#c8963e" stroke="#8a6420" stroke-width=".6"/>` +
    pipsMarkup(a, -S / 2) +
    pipsMarkup(b, S / 2)
  );
}

function backMarkup() {
  const inset = 1.2;
  const w = 2 * S - 2 * inset;
  const h = S - 2 * inset;
  return (
    `<rect class="bone-back" x="${-S + inset}" y="${-S / 2 + inset}" width="${w}" height="${h}" rx="${S * 0.16}" fill="#0d3b20" stroke="#c8963e" stroke-width="1.6"/>` +
    `<rect class="bone-back-inlay" x="${-S + 6}" y="${-S / 2 + 6}" width="${2 * S - 12}" height="${S - 12}" rx="${S * 0.1}" fill="none" stroke="#c8963e" stroke-width=".9" opacity=".7"/>` +
    `<path class="bone-back-mark" d="M0 ${-S * 0.22} L${S * 0.22} 0 L0 ${S * 0.22} L${-S * 0.22} 0 Z" fill="#c8963e" opacity=".85"/>`
  );
}

// Every bone carries its own presentation attributes (no <style> element: the site's
// Content-Security-Policy allows style sheets from the site only), so it looks right anywhere.

/**
 * One bone as an <svg> element (for hands, the yard, summaries).
 * bone: "6-4" (drawn 6 then 4: left/top first); options: size (px of the short side, default 28),
 * vertical (default false), faceDown, highlighted, title (for a <title>; default the bone).
 */
export function renderBone(bone, options = {}) {
  const size = options.size || 28;
  const vertical = !!options.vertical;
  const svg = document.createElementNS(SVGNS, "svg");
  const w = vertical ? S : 2 * S;
  const h = vertical ? 2 * S : S;
  const pad = options.highlighted ? 4 : 1;
  svg.setAttribute("viewBox", `${-pad} ${-pad} ${w + 2 * pad} ${h + 2 * pad}`);
  const scale = size / S;
  svg.setAttribute("width", String(Math.round((w + 2 * pad) * scale)));
  svg.setAttribute("height", String(Math.round((h + 2 * pad) * scale)));
  svg.setAttribute("class", "bone-svg" + (options.faceDown ? " face-down" : "") + (options.highlighted ? " highlighted" : ""));
  svg.setAttribute("aria-hidden", options.title ? "false" : "true");
  svg.setAttribute("focusable", "false");
  let inner = "";
  const transform = `translate(${w / 2} ${h / 2})${vertical ? " rotate(90)" : ""}`;
  if (options.highlighted) {
    inner += `<rect x="${-pad + 0.5}" y="${-pad + 0.5}" width="${w + 2 * pad - 1}" height="${h + 2 * pad - 1}" rx="${S * 0.22}" fill="none" stroke="#f4c430" stroke-width="3"/>`;
  }
  if (options.faceDown) {
    inner += `<g transform="${transform}">${backMarkup()}</g>`;
  } else {
    const { a, b } = parseBone(bone);
    inner += `<g transform="${transform}">${faceMarkup(a, b)}</g>`;
  }
  const title = options.title ? `<title>${esc(options.title)}</title>` : "";
  svg.innerHTML = `${title}${inner}`;
  return svg;
}

// ---------------------------------------------------------------------------------- layout

/**
 * The chains leaving the centre piece, each a list of {bone, inner, outer} from the centre out.
 * West ends in the engine's "left" end, east in "right", north "up", south "down".
 */
function buildChains(board) {
  const lead = board.lead;
  const arms = board.arms || { left: [], right: [], up: [], down: [] };
  const sp = board.spinner;
  const flip = (r) => ({ bone: r.bone, inner: r.outer, outer: r.inner });
  let center;
  let W;
  let E;
  if (sp && sp.arm !== "lead" && sp.arm) {
    const A = arms[sp.arm] || [];
    const k = sp.index;
    const beyond = A.slice(k + 1);
    const back = A.slice(0, k).reverse().map(flip);
    const other = sp.arm === "left" ? "right" : "left";
    const leadPiece =
      sp.arm === "left"
        ? { bone: lead.bone, inner: lead.left, outer: lead.right }
        : { bone: lead.bone, inner: lead.right, outer: lead.left };
    const toward = [...back, leadPiece, ...(arms[other] || [])];
    const v = A[k].inner;
    center = { bone: A[k].bone, a: v, b: v, kind: "spinner" };
    if (sp.arm === "left") {
      W = beyond;
      E = toward;
    } else {
      E = beyond;
      W = toward;
    }
  } else {
    const double = lead.left === lead.right;
    center = { bone: lead.bone, a: lead.left, b: lead.right, kind: sp ? "spinner" : double ? "double" : "plain" };
    W = arms.left || [];
    E = arms.right || [];
  }
  return { center, W, E, N: arms.up || [], S: arms.down || [] };
}

const GHOST = { ghost: true, bone: null, inner: null, outer: null };

function rectOf(cx, cy, along, alongLen, acrossLen) {
  // along: direction key of the long side (for a bone lying along E/W its width is alongLen)
  const horizontal = along === "E" || along === "W";
  const w = horizontal ? alongLen : acrossLen;
  const h = horizontal ? acrossLen : alongLen;
  return { x0: cx - w / 2, y0: cy - h / 2, x1: cx + w / 2, y1: cy + h / 2 };
}

/**
 * Lay one chain. Returns false when the frame is too small for it (a leg could not hold a bone).
 * start: {x, y, cross} the centre of the square the chain grows from, and whether the piece
 * there lies crosswise; dir: first direction; turn: the direction its corners turn to.
 */
function layChain(pieces, start, dir, turn, limits, out, endName, ghost) {
  let cx = start.x;
  let cy = start.y;
  let d = dir;
  let lastCross = start.cross;
  let inLeg = 0; // pieces in the current leg: a leg that cannot hold one bone means a bigger frame
  let ok = true;
  const count = pieces.length + (ghost ? 1 : 0);
  for (let i = 0; i < count; i++) {
    const p = i < pieces.length ? pieces[i] : GHOST;
    const isDouble = !p.ghost && p.inner === p.outer;
    const v = DIRS[d];
    const along = cx * v.x + cy * v.y;
    const far = along + (isDouble ? 1.5 : 2.5);
    const limit = d === dir ? limits.outer : limits.inner;
    if (far > limit + 1e-9) {
      if (inLeg === 0) {
        ok = false; // the frame cannot hold even one bone in this leg
      } else {
        // A corner: the bone turns, lengthwise, its inner half beside the last outer half.
        const t = DIRS[turn];
        const off = lastCross ? 0.5 : 0;
        const bx = cx + t.x * off;
        const by = cy + t.y * off;
        const ccx = bx + t.x * 1.5;
        const ccy = by + t.y * 1.5;
        out.pieces.push({
          bone: p.bone,
          inner: p.inner,
          outer: p.outer,
          ghost: !!p.ghost,
          chain: endName,
          cx: ccx,
          cy: ccy,
          angle: t.angle,
          cross: false,
          corner: true,
          rect: rectOf(ccx, ccy, turn, 2, 1),
          innerAt: { x: bx + t.x, y: by + t.y },
        });
        out.corners++;
        cx = bx + t.x * 2;
        cy = by + t.y * 2;
        d = REVERSE[d];
        lastCross = false;
        inLeg = 0;
        continue;
      }
    }
    if (isDouble) {
      const pcx = cx + v.x;
      const pcy = cy + v.y;
      out.pieces.push({
        bone: p.bone,
        inner: p.inner,
        outer: p.outer,
        ghost: false,
        chain: endName,
        cx: pcx,
        cy: pcy,
        angle: v.angle + 90,
        cross: true,
        rect: rectOf(pcx, pcy, d, 1, 2),
        innerAt: { x: pcx, y: pcy },
      });
      cx = pcx;
      cy = pcy;
      lastCross = true;
    } else {
      const pcx = cx + v.x * 1.5;
      const pcy = cy + v.y * 1.5;
      out.pieces.push({
        bone: p.bone,
        inner: p.inner,
        outer: p.outer,
        ghost: !!p.ghost,
        chain: endName,
        cx: pcx,
        cy: pcy,
        angle: v.angle,
        cross: false,
        rect: rectOf(pcx, pcy, d, 2, 1),
        innerAt: { x: cx + v.x, y: cy + v.y },
      });
      cx += v.x * 2;
      cy += v.y * 2;
      lastCross = false;
    }
    inLeg++;
  }
  return ok;
}

function layoutInFrame(chains, openEnds, HW, HH) {
  const out = { pieces: [], corners: 0 };
  const c = chains.center;
  const cross = c.kind === "spinner" || c.kind === "double";
  // The centre piece: a double lies across the west-east line; any other lead along it.
  out.pieces.push({
    bone: c.bone,
    inner: c.a,
    outer: c.b,
    chain: "center",
    cx: 0,
    cy: 0,
    angle: cross ? 90 : 0,
    cross,
    rect: cross ? { x0: -0.5, y0: -1, x1: 0.5, y1: 1 } : { x0: -1, y0: -0.5, x1: 1, y1: 0.5 },
  });
  const hasCross = c.kind === "spinner";
  const m = 0.2;
  const sx = cross ? 0 : 0.5;
  let ok = true;
  ok =
    layChain(chains.W, { x: -sx, y: 0, cross }, "W", "N", { outer: HW, inner: hasCross ? -(1 + m) : HW }, out, "left", openEnds.has("left")) && ok;
  ok =
    layChain(chains.E, { x: sx, y: 0, cross }, "E", "S", { outer: HW, inner: hasCross ? -(1 + m) : HW }, out, "right", openEnds.has("right")) && ok;
  if (hasCross) {
    ok = layChain(chains.N, { x: 0, y: -0.5, cross: false }, "N", "E", { outer: HH, inner: -(1 + m) }, out, "up", openEnds.has("up")) && ok;
    ok = layChain(chains.S, { x: 0, y: 0.5, cross: false }, "S", "W", { outer: HH, inner: -(1 + m) }, out, "down", openEnds.has("down")) && ok;
  }
  // Everything must sit inside the frame.
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of out.pieces) {
    const r = p.rect;
    if (r.x0 < -HW - 1e-9 || r.x1 > HW + 1e-9 || r.y0 < -HH - 1e-9 || r.y1 > HH + 1e-9) ok = false;
    x0 = Math.min(x0, r.x0);
    y0 = Math.min(y0, r.y0);
    x1 = Math.max(x1, r.x1);
    y1 = Math.max(y1, r.y1);
  }
  out.ok = ok;
  out.bounds = { x0, y0, x1, y1 };
  return out;
}

/**
 * The geometry of a board view: pieces (bones and, for open ends, "ghost" places where the next
 * bone would go), in layout units, and the bounds. aspect: width / height of the space to fill.
 */
export function layoutBoard(board, aspect = 1.6, opts = {}) {
  if (!board || !board.lead) return null;
  const chains = buildChains(board);
  const openEnds = new Set((board.ends || []).map((e) => e.end));
  const minW = opts.minWidth ?? 13; // never zoom in further than this many units across
  const minH = opts.minHeight ?? 7;
  // Rows at least ~6 bones long before they turn (~4 in a tall, narrow space).
  const minHW = opts.minHalfWidth ?? (aspect < 1.2 ? 4.5 : 6.5);
  let best = null;
  const shapes = [aspect, aspect * 0.75, aspect * 1.35, aspect * 2];
  // Every bone covers 2 square units, so no smaller frame can hold them: start the search there.
  const n = (board.size || 1) + openEnds.size;
  for (const shape of shapes) {
    // Coarse steps up to the first frame that fits, then fine steps from the last that did not.
    const frameFor = (HH) => layoutInFrame(chains, openEnds, Math.max(minHW, HH * shape), HH);
    let lo = Math.max(2.6, Math.min(Math.sqrt(n / (2 * shape)), n / (2 * minHW)));
    let fit = null;
    let HH = lo;
    for (; HH < 120; HH *= 1.3) {
      fit = frameFor(HH);
      if (fit.ok) break;
      lo = HH;
    }
    if (!fit || !fit.ok) continue;
    for (let h = lo * 1.05; h < HH; h *= 1.05) {
      const lay = frameFor(h);
      if (lay.ok) {
        fit = lay;
        HH = h;
        break;
      }
    }
    const lay = fit;
    const b = lay.bounds;
    const bw = Math.max(minW, b.x1 - b.x0 + 1.2);
    const bh = Math.max(minH, b.y1 - b.y0 + 1.2);
    const score = Math.min(aspect / bw, 1 / bh);
    const better = !best || score > best.score * 1.02 || (score > best.score * 0.98 && lay.corners < best.lay.corners);
    if (better) best = { score, lay, HW: Math.max(minHW, HH * shape), HH };
  }
  if (!best) {
    // Cannot happen for a real board; lay it in a huge frame rather than fail.
    const lay = layoutInFrame(chains, openEnds, 500, 500);
    best = { lay, HW: 500, HH: 500 };
  }
  return { ...best.lay, center: chains.center, frame: { HW: best.HW, HH: best.HH } };
}

// ---------------------------------------------------------------------------------- drawing

let boardCounter = 0;

function measure(svg, options) {
  if (options.width && options.height) return { w: options.width, h: options.height };
  const el = svg.parentElement || svg;
  const r = el.getBoundingClientRect ? el.getBoundingClientRect() : null;
  if (r && r.width > 20 && r.height > 20) return { w: r.width, h: r.height };
  return { w: 800, h: 500 };
}

/**
 * Draw a board view into an <svg>.
 * options: lastBone ("6-4": glow), litEnds (["left", ...]: the ends the chosen bone fits),
 * hintEnds (["left"]: marked as the coach's hint, not made playable),
 * onEnd(end, event) (an end target was activated), t(key, params) (translations), unit (5 or 3:
 * marks a scoring ends total), width/height (px; default: the svg's parent's size).
 */
export function renderBoard(svg, board, options = {}) {
  const t = makeT(options);
  const id = svg.dataset.boardId || `b${++boardCounter}`;
  svg.dataset.boardId = id;
  const { w: cw, h: ch } = measure(svg, options);
  svg.setAttribute("xmlns", SVGNS);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.classList.add("board-svg");
  const lit = new Set(options.litEnds || []);
  const hinted = new Set(options.hintEnds || []); // the coach's hint: drawn, not made playable
  const last = options.lastBone ? canonicalBone(options.lastBone) : null;

  const defs =
    `<defs>` +
    `<linearGradient id="${id}-face" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fffef9"/><stop offset="1" stop-color="#ece2cb"/></linearGradient>` +
    `<filter id="${id}-shadow" x="-20%" y="-30%" width="140%" height="160%"><feDropShadow dx="0" dy="1.6" stdDeviation="1.4" flood-color="#02140a" flood-opacity=".55"/></filter>` +
    `<filter id="${id}-glow" x="-40%" y="-60%" width="180%" height="220%"><feGaussianBlur stdDeviation="3.5"/></filter>` +
    `</defs>`;

  if (!board || !board.lead) {
    const vw = Math.min(13, Math.max(9, (5 * cw) / ch)) * S;
    const vh = vw / Math.max(0.6, cw / ch);
    svg.setAttribute("viewBox", `${-vw / 2} ${-vh / 2} ${vw} ${vh}`);
    svg.setAttribute("role", "img");
    const label = t("board_empty");
    svg.setAttribute("aria-label", label);
    svg.innerHTML =
      defs +
      `<title>${esc(label)}</title>` +
      `<rect class="board-empty-outline" x="${-S * 1.1}" y="${-S * 0.6}" width="${S * 2.2}" height="${S * 1.2}" rx="${S * 0.2}"/>` +
      `<text class="board-empty-text" x="0" y="${S * 1.5}" text-anchor="middle">${esc(label)}</text>`;
    return { layout: null };
  }

  const layout = layoutBoard(board, Math.max(0.5, Math.min(3, cw / ch)), options.layout || {});
  const ends = new Map((board.ends || []).map((e) => [e.end, e]));

  // viewBox: the bounds, at least the minimum size, plus a band on top for the ends badge.
  const b = layout.bounds;
  const pad = 0.55;
  let vx0 = b.x0 - pad;
  let vx1 = b.x1 + pad;
  let vy0 = b.y0 - pad;
  let vy1 = b.y1 + pad;
  const minW = 13;
  const minH = 7;
  if (vx1 - vx0 < minW) {
    const c = (vx0 + vx1) / 2;
    vx0 = c - minW / 2;
    vx1 = c + minW / 2;
  }
  if (vy1 - vy0 < minH) {
    const c = (vy0 + vy1) / 2;
    vy0 = c - minH / 2;
    vy1 = c + minH / 2;
  }
  // Fit the container's aspect exactly (so the ends badge sits in its top left corner), keeping
  // a band free above the bones for the badge: about 34 px high on screen.
  const A = cw / ch;
  const vw0 = vx1 - vx0;
  const vh0 = vy1 - vy0;
  const pxPerUnit = Math.min(cw / vw0, ch / (vh0 + 1));
  const band = Math.min(3, Math.max(0.9, 34 / pxPerUnit));
  const H = Math.max(vh0 + band, vw0 / A);
  const W = H * A;
  const topGap = Math.max(band, (H - vh0) / 2);
  vx0 = (vx0 + vx1) / 2 - W / 2;
  vx1 = vx0 + W;
  vy0 -= topGap;
  vy1 = vy0 + H;
  svg.setAttribute("viewBox", `${(vx0 * S).toFixed(1)} ${(vy0 * S).toFixed(1)} ${(W * S).toFixed(1)} ${(H * S).toFixed(1)}`);

  const parts = [defs];
  const total = board.total ?? 0;
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", t("board_label", { n: board.size ?? layout.pieces.length, total }));

  // Bones.
  const bones = [];
  const ghosts = [];
  for (const p of layout.pieces) {
    if (p.ghost) {
      ghosts.push(p);
      continue;
    }
    const isLast = last && canonicalBone(p.bone) === last;
    const x = p.cx * S;
    const y = p.cy * S;
    const cls = ["bone"];
    if (p.chain === "center") cls.push("bone-center");
    if (p.chain === "center" && board.spinner) cls.push("spinner");
    if (p.cross) cls.push("crosswise");
    if (isLast) cls.push("last-play");
    let g = `<g class="${cls.join(" ")}" data-bone="${esc(canonicalBone(p.bone))}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) rotate(${p.angle})">`;
    const note = [p.chain === "center" && board.spinner ? t("spinner") : "", isLast ? t("last_play") : ""].filter(Boolean);
    g += `<title>${esc(canonicalBone(p.bone))}${note.length ? " · " + esc(note.join(" · ")) : ""}</title>`;
    if (isLast) {
      g += `<rect class="last-glow" x="${-S - 3}" y="${-S / 2 - 3}" width="${2 * S + 6}" height="${S + 6}" rx="${S * 0.25}" filter="url(#${id}-glow)"/>`;
      g += `<rect class="last-ring" x="${-S - 1.5}" y="${-S / 2 - 1.5}" width="${2 * S + 3}" height="${S + 3}" rx="${S * 0.22}"/>`;
    }
    g += `<g filter="url(#${id}-shadow)">${faceMarkup(p.inner, p.outer, { fill: `url(#${id}-face)` })}</g>`;
    if (p.chain === "center" && board.spinner) {
      // The spinner wears a thin brass ring.
      g += `<rect class="spinner-ring" x="${-S + 3.5}" y="${-S / 2 + 3.5}" width="${2 * S - 7}" height="${S - 7}" rx="${S * 0.12}"/>`;
    }
    g += `</g>`;
    bones.push(g);
  }

  // End targets: where the next bone would go, marked with what the end counts.
  const targets = [];
  for (const gp of ghosts) {
    const e = ends.get(gp.chain);
    if (!e) continue;
    const endName = t(`end_${e.end}`);
    const empty = (e.end === "up" || e.end === "down") && !(board.arms?.[e.end] || []).length;
    const isLit = lit.has(e.end);
    const label = t(empty ? "end_target_empty" : "end_target", { end: endName, value: e.value, counts: e.counts });
    const r = gp.rect;
    const mx = gp.innerAt.x * S;
    const my = gp.innerAt.y * S;
    const cls = ["end-target", `end-${e.end}`];
    if (isLit) cls.push("lit");
    if (hinted.has(e.end)) cls.push("hinted");
    if (empty) cls.push("empty");
    let g = `<g class="${cls.join(" ")}" data-end="${e.end}" data-value="${e.value}" data-counts="${e.counts}" tabindex="0" role="button" aria-label="${esc(label)}"${isLit ? "" : ' aria-disabled="true"'}>`;
    // No <title>: axe counts its words as the target's visible text along with the number shown,
    // and the name (ending with that number) would no longer contain them
    // (label-content-name-mismatch).
    g += `<circle class="end-hit" cx="${mx.toFixed(1)}" cy="${my.toFixed(1)}" r="${(S * 1.05).toFixed(1)}"/>`;
    g += `<rect class="end-ghost" x="${(r.x0 * S + 2).toFixed(1)}" y="${(r.y0 * S + 2).toFixed(1)}" width="${((r.x1 - r.x0) * S - 4).toFixed(1)}" height="${((r.y1 - r.y0) * S - 4).toFixed(1)}" rx="${S * 0.16}"/>`;
    g += `<circle class="end-marker" cx="${mx.toFixed(1)}" cy="${my.toFixed(1)}" r="${(S * 0.36).toFixed(1)}"/>`;
    g += `<text class="end-value" x="${mx.toFixed(1)}" y="${my.toFixed(1)}" text-anchor="middle" dominant-baseline="central">${empty ? e.value : e.counts}</text>`;
    g += `</g>`;
    targets.push(g);
  }

  // The ends total badge, top left of the band.
  const badgeH = band * 0.78 * S;
  const bx = vx0 * S + 0.25 * S;
  const by = vy0 * S + band * 0.11 * S; // the top left corner of the view
  const text = t("ends_total", { n: total });
  const badgeW = badgeH * (0.62 + text.length * 0.52);
  const scoring = options.unit && total > 0 && total % options.unit === 0;
  const badge =
    `<g class="ends-badge${scoring ? " scoring" : ""}" role="note" aria-label="${esc(t("ends_total_help", { unit: options.unit || 5, n: total }))}">` +
    `<title>${esc(t("ends_total_help", { unit: options.unit || 5, n: total }))}</title>` +
    `<rect x="${bx.toFixed(1)}" y="${by.toFixed(1)}" width="${badgeW.toFixed(1)}" height="${badgeH.toFixed(1)}" rx="${(badgeH / 2).toFixed(1)}"/>` +
    `<text x="${(bx + badgeW / 2).toFixed(1)}" y="${(by + badgeH / 2).toFixed(1)}" text-anchor="middle" dominant-baseline="central" font-size="${(badgeH * 0.56).toFixed(1)}">${esc(text)}</text>` +
    `</g>`;

  parts.push(`<g class="board-bones">${bones.join("")}</g>`, `<g class="board-ends">${targets.join("")}</g>`, badge);
  svg.innerHTML = parts.join("");

  // Activation: click or Enter/Space on a target.
  if (typeof options.onEnd === "function") {
    for (const g of svg.querySelectorAll(".end-target")) {
      const fire = (ev) => options.onEnd(g.dataset.end, ev);
      g.addEventListener("click", fire);
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " " || ev.key === "Spacebar") {
          ev.preventDefault();
          fire(ev);
        }
      });
    }
  }
  return { layout };
}
