// Dominologist: the coach. On a game's page, the player's review in the replay (ask for it,
// follow its progress, step through the decisions with the board after the move played beside
// the board after the Shark's); at a practice table, the Hint button. No dependencies, no build
// step.

import { canonicalBone, renderBoard } from "./board.js";
import { el, readJson } from "./dom.js";

/** A light bulb (a move played after a hint), drawn: an emoji is a box without an emoji font. */
function bulbIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  for (const [k, v] of Object.entries({ viewBox: "0 0 24 24", width: "16", height: "16", "aria-hidden": "true", focusable: "false", class: "bulb-icon" })) svg.setAttribute(k, v);
  svg.innerHTML =
    '<path d="M9 18h6M10 21h4M12 3a6 6 0 0 0-3.5 10.9c.6.5 1 1.2 1 2.1h5c0-.9.4-1.6 1-2.1A6 6 0 0 0 12 3z" fill="#fde68a" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round" stroke-linecap="round"/>';
  return svg;
}

function fmt(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

function csrfToken(root) {
  return root.querySelector('input[name="csrfmiddlewaretoken"]')?.value || "";
}

const POLL_MS = 1000;

// ------------------------------------------------------------------------------ the review

function setupReview(root) {
  const strings = readJson("review-strings", {});
  const gameStrings = readJson("game-strings", {});
  const t = (key, params) => fmt(strings[key] ?? key, params);
  const url = root.dataset.url;
  const form = root.querySelector("#review-form");
  const progress = root.querySelector("#review-progress");
  const bar = root.querySelector("#review-bar");
  const count = root.querySelector("#review-count");
  const error = root.querySelector("#review-error");
  const body = root.querySelector("#review-body");
  const replayRoot = document.getElementById("replay");
  let decisions = [];
  let frameOf = [];
  let current = -1; // the decision shown (index), -1 when the step is not one of them
  let waiting = -1; // a decision chosen before the replay had started
  let pollTimer = null;

  function setState(status) {
    root.dataset.status = status;
  }

  function showError(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  async function ask(ev) {
    ev.preventDefault();
    showError("");
    form.querySelector("button")?.setAttribute("aria-disabled", "true");
    try {
      const response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(root), Accept: "application/json" },
      });
      const payload = await response.json();
      if (!response.ok) {
        showError(payload.error || t("error"));
        return;
      }
      apply(payload);
    } catch {
      showError(t("error"));
    } finally {
      form.querySelector("button")?.removeAttribute("aria-disabled");
    }
  }

  async function poll() {
    pollTimer = null;
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (response.ok) {
        apply(await response.json());
        return;
      }
    } catch {
      // the network blinked: try again
    }
    pollTimer = setTimeout(poll, POLL_MS * 3);
  }

  function apply(payload) {
    const status = payload.status || "none";
    setState(status);
    if (status === "queued" || status === "running") {
      form.hidden = true;
      progress.hidden = false;
      const total = Math.max(1, payload.total || 0);
      bar.max = total;
      bar.value = payload.done || 0;
      count.textContent = payload.total ? t("progress", { done: payload.done, total: payload.total }) : t("progress_waiting");
      if (!pollTimer) pollTimer = setTimeout(poll, POLL_MS);
      return;
    }
    progress.hidden = true;
    if (status === "failed") {
      form.hidden = false;
      showError(payload.error || t("error"));
      return;
    }
    if (status === "done") {
      form.hidden = true;
      renderReview(payload);
      return;
    }
    form.hidden = false;
  }

  function replay() {
    return window.dominologistReplay || null;
  }

  function renderReview(payload) {
    decisions = payload.decisions || [];
    const summary = root.querySelector("#review-summary");
    summary.replaceChildren(...(payload.summary?.lines || []).map((line) => el("li", {}, line)));
    const marks = root.querySelector("#review-marks");
    marks.replaceChildren(
      ...(payload.marks || []).map((m) => el("li", { class: `mark mark-${m.mark}`, title: m.help }, t("mark_count", { label: m.label, n: m.n }))),
    );
    const list = root.querySelector("#review-list");
    list.replaceChildren(
      ...decisions.map((d, i) => {
        const li = el("li");
        const button = el("button", { type: "button", class: `review-jump mark-${d.mark}`, "data-decision-index": i, title: d.mark_help });
        button.append(el("span", { class: "at" }, t("at", { hand: d.hand, step: d.step })), el("span", { class: "badge" }, d.mark_label));
        if (d.hinted) {
          const tag = el("span", { class: "hinted-tag", title: t("hinted") });
          tag.append(bulbIcon(), el("span", { class: "visually-hidden" }, t("hinted")));
          button.append(tag);
        }
        button.addEventListener("click", () => goTo(i));
        li.append(button);
        return li;
      }),
    );
    body.hidden = false;
    dockNav();
    const api = replay();
    if (api) bindFrames(api);
    else if (!replayRoot) root.dataset.ready = "true";
    // else: ready once the replay has started (its first replay:show binds the decisions to it)
  }

  function bindFrames(api) {
    frameOf = decisions.map((d) => api.frames.findIndex((f) => f.hand === d.hand && f.step === d.step));
    root.dataset.ready = "true";
    if (waiting >= 0) {
      const i = waiting;
      waiting = -1;
      goTo(i);
      return;
    }
    showFor(api.at);
  }

  function goTo(i) {
    const api = replay();
    if (!api || frameOf.length !== decisions.length) {
      waiting = i; // pressed before the replay started: shown as soon as it has
      return;
    }
    if (i < 0 || i >= decisions.length || frameOf[i] < 0) return;
    api.show(frameOf[i]);
  }

  function step(direction) {
    const api = replay();
    if (!api || !decisions.length) return;
    const at = api.at;
    if (direction > 0) {
      const i = frameOf.findIndex((f) => f > at);
      if (i >= 0) goTo(i);
    } else {
      let i = -1;
      frameOf.forEach((f, k) => {
        if (f >= 0 && f < at) i = k;
      });
      if (i >= 0) goTo(i);
    }
  }

  function showFor(at) {
    if (!decisions.length) return;
    current = frameOf.indexOf(at);
    root.dataset.decision = current >= 0 ? String(current) : "";
    const where = root.querySelector("#review-where");
    where.textContent = current >= 0 ? t("where", { i: current + 1, n: decisions.length }) : t("where_none", { n: decisions.length });
    for (const b of root.querySelectorAll(".review-jump")) {
      b.setAttribute("aria-current", b.dataset.decisionIndex === String(current) ? "true" : "false");
    }
    const prev = root.querySelector('[data-decision="prev"]');
    const next = root.querySelector('[data-decision="next"]');
    prev.setAttribute("aria-disabled", String(!frameOf.some((f) => f >= 0 && f < at)));
    next.setAttribute("aria-disabled", String(!frameOf.some((f) => f > at)));
    const words = root.querySelector("#review-words");
    const alt = root.querySelector("#review-alt");
    if (current < 0) {
      words.replaceChildren(el("p", { class: "help" }, t("no_decision")));
      alt.hidden = true;
      return;
    }
    const d = decisions[current];
    const head = el("p", { class: "review-head" });
    head.append(
      el("span", { class: `badge mark-${d.mark}`, title: d.mark_help }, d.mark_label),
      document.createTextNode(" "),
      el("span", {}, t("at", { hand: d.hand, step: d.step })),
    );
    if (d.hinted) head.append(document.createTextNode(" · "), el("span", { class: "hinted-tag" }, t("hinted")));
    const lines = [head, el("p", {}, t("you_played", { move: d.played }))];
    if (!d.same) {
      lines.push(el("p", { class: "shark-move" }, t("shark_plays", { move: d.best })));
      lines.push(el("p", { class: "help" }, t("cost", { cost: d.cost.toFixed(1), gap: d.gap.toFixed(1) })));
    }
    const reasons = el("ul", { class: "review-reasons" });
    for (const r of d.reason) reasons.append(el("li", {}, r));
    lines.push(reasons);
    words.replaceChildren(...lines);
    showBoards(d);
  }

  /** The board after the player's move beside the board after the Shark's, each labelled, its
   * bone glowing; one board when the Shark would have played the same; none for the five-doubles
   * choice. */
  function showBoards(d) {
    const alt = root.querySelector("#review-alt");
    const yours = d.played_board || null;
    const sharks = !d.same && d.board ? d.board : null;
    alt.hidden = !yours && !sharks;
    if (alt.hidden) return;
    alt.dataset.same = String(Boolean(d.same));
    root.querySelector("#review-yours").hidden = !yours;
    root.querySelector("#review-sharks").hidden = !sharks;
    root.querySelector("#review-yours-title").textContent = t(d.same ? "board_same" : "board_yours", { move: d.played });
    root.querySelector("#review-sharks-title").textContent = sharks ? t("board_sharks", { move: d.best }) : "";
    drawBoards(d);
  }

  function drawBoards(d) {
    if (d.played_board) drawBoard(root.querySelector("#review-board-yours"), d.played_board, d.played_bone);
    if (!d.same && d.board) drawBoard(root.querySelector("#review-board"), d.board, d.best_bone);
  }

  function drawBoard(svg, board, bone) {
    renderBoard(svg, board, {
      lastBone: bone ? canonicalBone(bone) : null,
      t: (key, params) => (gameStrings[key] != null ? fmt(gameStrings[key], params) : null),
      unit: window.dominologistReplay?.unit || 5,
    });
    for (const g of svg.querySelectorAll(".end-target")) {
      g.removeAttribute("tabindex");
      g.removeAttribute("aria-disabled");
      g.setAttribute("role", "img");
    }
  }

  /** Previous and Next decision stay in sight (docked at the bottom of the window) once the
   * replay is reached, so a phone need not scroll back up to step on; the page is padded by the
   * bar's height so it covers nothing (coach.css reads --review-nav-h). */
  function dockNav() {
    const nav = root.querySelector("#review-nav");
    const html = document.documentElement;
    if (!nav || nav.dataset.docking) return;
    nav.dataset.docking = "true";
    const measure = () => html.style.setProperty("--review-nav-h", `${Math.ceil(nav.getBoundingClientRect().height)}px`);
    const dock = (on) => {
      if (nav.classList.contains("docked") === on) return;
      nav.classList.toggle("docked", on);
      html.classList.toggle("review-docked", on);
      if (on) measure();
    };
    if ("ResizeObserver" in window) {
      new ResizeObserver(() => {
        if (nav.classList.contains("docked")) measure();
      }).observe(nav);
    }
    if (!("IntersectionObserver" in window)) {
      dock(true);
      return;
    }
    // Docked while the replay is in sight or scrolled past (the list of hands below it).
    new IntersectionObserver(([entry]) => dock(entry.isIntersecting || entry.boundingClientRect.top < 0)).observe(replayRoot || root);
  }

  form?.addEventListener("submit", ask);
  for (const b of root.querySelectorAll("[data-decision]")) {
    b.addEventListener("click", () => step(b.dataset.decision === "next" ? 1 : -1));
  }
  (replayRoot || root).addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key !== "ArrowUp" && ev.key !== "ArrowDown") return;
    const target = ev.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (!decisions.length) return;
    ev.preventDefault();
    step(ev.key === "ArrowDown" ? 1 : -1);
  });
  replayRoot?.addEventListener("replay:show", (ev) => {
    const api = replay();
    if (!decisions.length || !api) return;
    if (frameOf.length !== decisions.length || (frameOf.length && frameOf.every((f) => f < 0))) bindFrames(api);
    else showFor(ev.detail.at);
  });
  let resizeFrame = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => {
      if (current >= 0 && !root.querySelector("#review-alt").hidden) drawBoards(decisions[current]);
    });
  });

  const initial = readJson("review-data", null);
  apply(initial || { status: root.dataset.status || "none" });
}

// ------------------------------------------------------------------------------ the hint

function setupHint(box) {
  const app = document.getElementById("table-app");
  const button = box.querySelector("#hint-button");
  const text = box.querySelector("#hint-text");
  let shownFor = null; // the game version the text was for
  let busy = false;

  function table() {
    return window.dominologistTable || null;
  }

  function myTurn() {
    const api = table();
    const state = api?.state;
    const game = state?.game;
    const me = state?.table?.you?.seat;
    if (!game || typeof me !== "number" || game.to_act !== me) return false;
    if (game.phase !== "playing" && game.phase !== "choosing_doubles") return false;
    return Array.isArray(game.legal_actions) && game.legal_actions.length > 0 && !game.forced_pass;
  }

  function refresh() {
    const api = table();
    const version = api?.state?.game?.version ?? null;
    const turn = myTurn();
    box.hidden = !turn;
    box.dataset.turn = String(turn);
    if (shownFor !== null && shownFor !== version) {
      text.replaceChildren();
      shownFor = null;
      if (api?.state) api.state.hint = null;
    }
  }

  async function ask() {
    const api = table();
    if (busy || !api || !myTurn()) return;
    busy = true;
    button.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(box.dataset.url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(box), Accept: "application/json" },
      });
      const data = await response.json();
      if (!response.ok) {
        text.replaceChildren(el("p", { class: "hint-error" }, data.error || ""));
        return;
      }
      shownFor = data.version;
      const head = el("p", { class: "hint-move" });
      head.append(el("strong", {}, button.textContent.trim() + ": "), document.createTextNode(data.move));
      const reasons = el("ul");
      for (const r of data.reason || []) reasons.append(el("li", {}, r));
      text.replaceChildren(head, reasons);
      box.dataset.hinted = data.bone ? canonicalBone(data.bone) : "";
      api.state.hint = { version: data.version, bone: data.bone ? canonicalBone(data.bone) : null, end: data.end ?? null };
      api.render();
    } catch {
      text.replaceChildren(el("p", { class: "hint-error" }, ""));
    } finally {
      busy = false;
      button.removeAttribute("aria-busy");
    }
  }

  button.addEventListener("click", ask);
  app?.addEventListener("table:render", refresh);
  refresh();
  box.dataset.ready = "true";
}

const reviewRoot = document.getElementById("review");
if (reviewRoot) setupReview(reviewRoot);
const hintBox = document.getElementById("coach-hint");
if (hintBox) setupHint(hintBox);
