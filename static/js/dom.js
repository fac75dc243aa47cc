// Dominologist: small DOM helpers shared by the game page (game.js) and the coach (coach.js).
// No dependencies, no build step.

/** The JSON a template put in <script type="application/json" id="...">, or `fallback`. */
export function readJson(id, fallback) {
  const node = document.getElementById(id);
  if (!node) return fallback;
  try {
    const value = JSON.parse(node.textContent);
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

/** A new element with attributes (null, undefined and false left out; true as "") and text. */
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}
