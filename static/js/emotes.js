// Dominologist: the quick-chat emotes, drawn as the site's own SVG icons.
//
// On the wire an emote is still its Unicode emoji (docs/protocol.md, `chat`); a device without an
// emoji font would draw those as empty boxes, so the page never shows the character itself: each
// one maps to a name (a key of the page's strings) and an icon. The characters are written here
// as escapes only.

const SVGNS = "http://www.w3.org/2000/svg";

const FACE = '<circle cx="12" cy="12" r="10" fill="#f4c430" stroke="#7a5a1d" stroke-width="1.4"/>';
const INK = 'fill="none" stroke="#3b2a10" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"';
const SKIN = 'fill="#f4c430" stroke="#7a5a1d" stroke-width="1.3" stroke-linejoin="round"';
const TEAR = 'fill="#5fb4ea" stroke="#2a6f9e" stroke-width="0.8"';

/** The emotes in the order of the quick-chat buttons: wire value, name key, icon markup. */
export const EMOTES = [
  {
    value: "\u{1F44D}",
    key: "emote_thumbs",
    svg:
      '<rect x="2" y="10" width="4.5" height="11" rx="1.2" fill="#8a6420"/>' +
      `<path d="M7.5 10.5l3.4-6.2c.6-1.1 2.4-.8 2.5.6l-.4 4.1h5.6c1.4 0 2.4 1.3 2 2.6l-1.8 7.3c-.3 1.2-1.3 2.1-2.6 2.1H7.5z" ${SKIN}/>` +
      `<path d="M13.5 13h5M13.2 16h4.6" ${INK} stroke-width="1.1"/>`,
  },
  {
    value: "\u{1F44F}",
    key: "emote_clap",
    svg:
      `<rect x="4.5" y="8" width="7" height="13" rx="3.5" transform="rotate(-18 8 14.5)" ${SKIN}/>` +
      `<rect x="12.5" y="8" width="7" height="13" rx="3.5" transform="rotate(18 16 14.5)" ${SKIN}/>` +
      `<path d="M7 5L5.6 2.6M12 4V1.5M17 5l1.4-2.4" ${INK}/>`,
  },
  {
    value: "\u{1F602}",
    key: "emote_laugh",
    svg:
      FACE +
      `<path d="M6.8 9.6q1.7-2 3.4 0M13.8 9.6q1.7-2 3.4 0" ${INK}/>` +
      '<path d="M6.8 13h10.4a5.2 5.2 0 0 1-10.4 0z" fill="#3b2a10"/>' +
      '<path d="M9 16.2h6a3.4 3.4 0 0 1-6 0z" fill="#e5483c"/>' +
      `<path d="M3.2 10.5q-1.8 3 0 4.2q1.8-1.2 0-4.2z" ${TEAR}/><path d="M20.8 10.5q-1.8 3 0 4.2q1.8-1.2 0-4.2z" ${TEAR}/>`,
  },
  {
    value: "\u{1F62E}",
    key: "emote_wow",
    svg:
      FACE +
      '<circle cx="8.6" cy="9.6" r="1.4" fill="#3b2a10"/><circle cx="15.4" cy="9.6" r="1.4" fill="#3b2a10"/>' +
      `<path d="M6.8 6.6q1.8-1.3 3.4-.4M13.8 6.2q1.6-.9 3.4.4" ${INK} stroke-width="1.2"/>` +
      '<ellipse cx="12" cy="15.6" rx="2.4" ry="3" fill="#3b2a10"/>',
  },
  {
    value: "\u{1F622}",
    key: "emote_cry",
    svg:
      FACE +
      '<circle cx="8.6" cy="10" r="1.3" fill="#3b2a10"/><circle cx="15.4" cy="10" r="1.3" fill="#3b2a10"/>' +
      `<path d="M8.4 17.2q3.6-3.2 7.2 0" ${INK}/>` +
      `<path d="M15.6 12q-1.9 3.1 0 4.4q1.9-1.3 0-4.4z" ${TEAR}/>`,
  },
  {
    value: "\u{1F525}",
    key: "emote_fire",
    svg:
      '<path d="M12 1.8c1 4.2 6.4 6.3 6.4 12.4a6.4 6.4 0 0 1-12.8 0c0-3.7 2.6-5.2 3.2-7.9 1.5 1.5 1.6 3.2 1.3 4.7 1.7-1.7 2.4-5.2 1.9-9.2z" fill="#e8642c" stroke="#8a2a1f" stroke-width="1.2" stroke-linejoin="round"/>' +
      '<path d="M12 11.6c1.2 2.1 3.2 3.1 3.2 5.3a3.2 3.2 0 0 1-6.4 0c0-1.7 1.6-2.8 3.2-5.3z" fill="#ffd34d"/>',
  },
  {
    value: "\u{1F389}",
    key: "emote_party",
    svg:
      '<path d="M2.5 21.5l5-12.5 7.5 7.5z" fill="#c8963e" stroke="#5a3b17" stroke-width="1.2" stroke-linejoin="round"/>' +
      '<path d="M5.2 15.5l3.3 3.3M6.6 12l5.4 5.4" stroke="#e5483c" stroke-width="1.3"/>' +
      `<path d="M11 7.5q1.5-3 0-5.5M15 10q3-1.5 6.5.5M13.5 8.5l4-4" fill="none" stroke="#1b7f3b" stroke-width="1.5" stroke-linecap="round"/>` +
      '<circle cx="18.5" cy="3.5" r="1.3" fill="#e5483c"/><circle cx="20.5" cy="13.5" r="1.2" fill="#5fb4ea"/>' +
      '<rect x="15.2" y="1.3" width="2" height="2" fill="#f4c430" transform="rotate(25 16.2 2.3)"/><circle cx="8.5" cy="3.5" r="1.1" fill="#5fb4ea"/>',
  },
  {
    value: "\u{1F91D}",
    key: "emote_deal",
    svg:
      '<rect x="0.8" y="8.5" width="4.4" height="8.5" rx="1" fill="#5a3b17"/><rect x="18.8" y="8.5" width="4.4" height="8.5" rx="1" fill="#1d4670"/>' +
      `<path d="M5.2 10l4.8-2 3 1.4 4.5-1.4 1.3 1.6v6l-4.2 4.1c-.7.6-1.6.6-2.2 0L5.2 14.6z" ${SKIN}/>` +
      `<path d="M9 12.6l3.2 3.2M11.2 11.2l3.4 3.4M13.6 10.2l2.6 2.6M10 8l-1.8 2.6c-.4.7.4 1.6 1.2 1.2L12 10.4" ${INK} stroke-width="1.1"/>`,
  },
];

const BY_VALUE = new Map(EMOTES.map((e) => [e.value, e]));

/** The emote sent as `value` (its emoji), or null for one this page does not know. */
export function emoteOf(value) {
  return BY_VALUE.get(value) || null;
}

/**
 * An emote's icon as an <svg> element. `label`: its translated name, read by screen readers
 * (role img); without one the icon is decoration (aria-hidden).
 */
export function emoteIcon(emote, { size = 24, label = null } = {}) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("class", "emote-icon");
  svg.setAttribute("focusable", "false");
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  svg.innerHTML = (label ? `<title>${escapeText(label)}</title>` : "") + emote.svg;
  return svg;
}

function escapeText(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
