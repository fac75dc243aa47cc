// Dominologist: a game's page. The replay (the server's frames drawn on the table's own board),
// the deal checks (recomputed in this browser, static/js/fairdeal.js) and the share link.
// No dependencies, no build step.

import { parseBone, renderBoard, renderBone } from "./board.js";
import { verifyDeal } from "./fairdeal.js";
import { el, readJson } from "./dom.js";

const strings = readJson("game-strings", {});
const replay = readJson("replay-data", { frames: [] });
const checks = readJson("verify-data", []);

function t(key, params) {
  const text = strings[key];
  if (text == null) return null;
  return String(text).replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

// ------------------------------------------------------------------------------ the replay

/** Every frame with all its keys: the server leaves out what did not change. */
function fullFrames(raw) {
  const out = [];
  let last = {};
  for (const frame of raw) {
    last = { ...last, ...frame };
    out.push(last);
  }
  return out;
}

function setupReplay() {
  const root = document.getElementById("replay");
  if (!root || !replay.frames.length) return;
  const frames = fullFrames(replay.frames);
  const board = document.getElementById("replay-board");
  const seats = document.getElementById("replay-seats");
  const slider = document.getElementById("replay-step");
  const text = document.getElementById("replay-text");
  const position = document.getElementById("replay-position");
  const handSelect = document.getElementById("replay-hand");
  // Where each hand starts, and how many steps it has.
  const starts = [];
  frames.forEach((f, i) => {
    if (f.step === 0) starts.push(i);
  });
  const stepsIn = (hand) => frames.filter((f) => f.hand === hand).length - 1;
  let at = 0;

  function sideOf(seat) {
    return replay.partners ? seat % 2 : seat;
  }

  function drawSeats(frame) {
    seats.replaceChildren();
    frame.hands.forEach((bones, seat) => {
      const box = el("section", { class: "replay-seat" + (frame.to_act === seat ? " turn" : ""), "aria-label": replay.names[seat] });
      const head = el("h3");
      head.append(el("span", {}, replay.names[seat]));
      if (frame.to_act === seat) head.append(el("span", { class: "to-play" }, ` ${t("to_play") || ""}`));
      box.append(head);
      const facts = el("p", { class: "seat-facts" });
      const side = sideOf(seat);
      facts.append(
        el("span", { title: t("seat_score_help") }, t("seat_score", { side: replay.sides[side], score: frame.scores[side] })),
        document.createTextNode(" · "),
        el("span", {}, t(bones.length === 1 ? "seat_bones_one" : "seat_bones_other", { n: bones.length })),
        document.createTextNode(" · "),
        el("span", { title: t("seat_pips_help") }, t("seat_pips", { n: bones.reduce((s, b) => s + parseBone(b).pips, 0) })),
      );
      if (frame.dumbbells && frame.dumbbells[seat]) {
        facts.append(document.createTextNode(" · "), el("span", { title: t("dumbbells_help") }, t("dumbbells", { n: frame.dumbbells[seat] })));
      }
      box.append(facts);
      const row = el("div", { class: "seat-bones", role: "list" });
      if (!bones.length) row.append(el("span", { class: "help" }, t("no_bones")));
      for (const bone of bones) {
        const item = el("span", { role: "listitem" });
        item.append(renderBone(bone, { size: 18, vertical: true, title: bone }));
        row.append(item);
      }
      box.append(row);
      seats.append(box);
    });
    const yard = el("p", { class: "replay-yard", title: t("yard_help") }, t("yard", { n: frame.yard }));
    seats.append(yard);
  }

  function drawBoard(frame) {
    renderBoard(board, frame.board, {
      lastBone: frame.board && frame.board.lead ? frame.last : null,
      t: (key, params) => t(key, params),
      unit: replay.unit || 5,
    });
    // In a replay the end markers only describe: no play can be made on them.
    for (const g of board.querySelectorAll(".end-target")) {
      g.removeAttribute("tabindex");
      g.removeAttribute("aria-disabled");
      g.setAttribute("role", "img");
    }
  }

  function show(i, { announce = true } = {}) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[at];
    drawBoard(frame);
    drawSeats(frame);
    slider.value = String(at);
    const steps = stepsIn(frame.hand);
    const pos = t("position", { hand: frame.hand, step: frame.step, steps, i: at + 1, n: frames.length });
    position.textContent = pos;
    slider.setAttribute("aria-valuetext", `${pos}. ${frame.text}`);
    if (announce) text.textContent = frame.text;
    else text.textContent = frame.text;
    if (handSelect) handSelect.value = String(starts.filter((s) => s <= at).pop() ?? 0);
    root.dataset.frame = String(at);
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    for (const b of root.querySelectorAll("[data-go]")) {
      const back = ["first", "back", "hand-back"].includes(b.dataset.go);
      b.setAttribute("aria-disabled", String(back ? at === 0 : at === frames.length - 1));
    }
    if (history.replaceState) history.replaceState(null, "", `#step-${at}`);
    // The coach's review follows the replay (static/js/coach.js).
    root.dispatchEvent(new CustomEvent("replay:show", { detail: { at, frame } }));
  }

  function go(where) {
    if (where === "first") show(0);
    else if (where === "last") show(frames.length - 1);
    else if (where === "back") show(at - 1);
    else if (where === "forward") show(at + 1);
    else if (where === "hand-back") {
      const current = starts.filter((s) => s <= at).pop() ?? 0;
      show(at > current ? current : (starts.filter((s) => s < current).pop() ?? 0));
    } else if (where === "hand-forward") {
      const next = starts.find((s) => s > at);
      show(next ?? frames.length - 1);
    }
  }

  for (const b of root.querySelectorAll("[data-go]")) b.addEventListener("click", () => go(b.dataset.go));
  slider.addEventListener("input", () => show(Number(slider.value)));
  handSelect?.addEventListener("change", () => show(Number(handSelect.value)));
  const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last", PageUp: "hand-back", PageDown: "hand-forward" };
  root.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    // The slider and the hand list move themselves with these keys.
    if (target === slider || target === handSelect) return;
    const where = keys[ev.key];
    if (!where) return;
    ev.preventDefault();
    go(where);
  });
  // "Show on the board" beside each play in the lists below.
  for (const b of document.querySelectorAll("[data-frame]")) {
    b.addEventListener("click", () => {
      show(Number(b.dataset.frame));
      root.scrollIntoView({ block: "start", behavior: "smooth" });
      root.focus({ preventScroll: true });
    });
  }
  let resizeFrame = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => drawBoard(frames[at]));
  });
  // What the coach's review needs of the replay: the frames, where it is, and a way to step.
  window.dominologistReplay = {
    frames,
    unit: replay.unit || 5,
    show: (i) => show(i),
    get at() {
      return at;
    },
  };
  const match = /^#step-(\d+)$/.exec(location.hash);
  show(match ? Number(match[1]) : 0, { announce: false });
  root.dataset.ready = "true";
}

// ------------------------------------------------------------------------------ the deal checks

function bonesText(bones) {
  return (bones || []).join(" ");
}

async function runCheck(details) {
  const hand = Number(details.dataset.hand);
  const data = checks.find((c) => c.hand === hand);
  const out = details.querySelector("[data-result]");
  if (!data || !out) return;
  const contributions = {};
  for (const input of details.querySelectorAll('[data-field="wash"]')) contributions[input.dataset.seat] = input.value;
  const seed = details.querySelector('[data-field="seed"]').value;
  out.replaceChildren(el("p", {}, t("checking")));
  const result = await verifyDeal({
    seed,
    commitment: data.commitment,
    contributions,
    maxPip: data.max_pip,
    players: data.players,
    deal: data.deal,
    sent: data.sent,
    replayed: data.replayed,
  });
  const list = el("ul", { class: "checks" });
  if (result.error) {
    list.append(el("li", { class: "bad" }, t("check_error", { error: result.error })));
  } else {
    const c = result.commitment;
    list.append(el("li", { class: c.ok ? "ok" : "bad" }, t(c.ok ? "commitment_ok" : "commitment_bad", { hash: c.computed })));
    for (const s of result.seats) {
      const name = replay.names?.[s.seat] ?? `#${s.seat}`;
      const key = s.ok ? (s.source === "sent" ? "seat_ok_sent" : "seat_ok_replayed") : "seat_bad";
      list.append(el("li", { class: s.ok ? "ok" : "bad" }, t(key, { name, bones: bonesText(s.recomputed), expected: bonesText(s.expected) })));
    }
    if (result.yard.length) list.append(el("li", {}, t("yard_order", { bones: bonesText(result.yard) })));
  }
  const verdict = el("p", { class: "verdict " + (result.ok ? "ok" : "bad") }, t(result.ok ? "verified" : "not_verified"));
  out.replaceChildren(verdict, list);
  details.dataset.verified = result.ok ? "ok" : "bad";
}

function setupChecks() {
  for (const button of document.querySelectorAll("[data-verify]")) {
    const details = button.closest("details.verify");
    button.addEventListener("click", () => runCheck(details));
  }
}

// ------------------------------------------------------------------------------ the share link

function setupShare() {
  const button = document.getElementById("copy-link");
  const input = document.getElementById("share-url");
  const status = document.getElementById("copy-status");
  if (!button || !input) return;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = t("copied");
    } catch {
      input.select();
      status.textContent = t("copy_failed");
    }
  });
}

setupReplay();
setupChecks();
setupShare();
document.getElementById("game-page")?.setAttribute("data-ready", "true");
