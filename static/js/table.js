// Dominologist: the live table page. Plain ES module, no build step.
//
// Reads #table-app (data-table-id, data-ws-path, data-user-id) and the translated strings in
// <script type="application/json" id="table-strings">, talks the protocol of docs/protocol.md
// over one WebSocket, and draws what the server says. The server decides everything.
//
// Flags for tests: window.wsReady (socket open and the first snapshot/resume drawn),
// window.lastDrawnSeq and document.body.dataset.seq (the seq of the last drawn message).

import { canonicalBone, parseBone, renderBoard, renderBone } from "./board.js";
import { EMOTES, emoteIcon, emoteOf } from "./emotes.js";
import { createReader } from "./reader.js";
import { createSounds } from "./sounds.js";

const PING_MS = 20000;
const ACT_TIMEOUT_MS = 10000;
const MAX_LOG = 80;
// Closes the page must not retry (docs/protocol.md): not logged in, may not play, no such table,
// closed for flooding. Each says why in the banner and waits for the player to reload.
const FATAL_CLOSE = { 4001: "closed_login", 4003: "closed_not_allowed", 4004: "closed_no_table", 4008: "closed_abuse" };
// The server is restarting (docs/protocol.md): another one takes the page at once. A socket that
// was answered reconnects after a random 0-500 ms (a server's players do not all arrive in the
// same instant), with no back-off step and no error.
const RESTART_CLOSE = 1012;
const RESTART_JITTER_MS = 500;
// Before that close, a restarting server asks the page to move (`reconnect`): the page opens a
// new socket, says hello on it, and closes the old one (1000) once the new one is answered.
// Until then the old socket carries everything: the player sees no pause.
const MOVED_CLOSE = 1000;
// A socket that was working and dropped for another reason (its server or machine lost, a
// network blip) tries again after a random 200-1000 ms, then 2 s, 4 s ... 15 s: the lost server's
// players reach the others spread over most of a second rather than all at the one-second mark.
const FIRST_RETRY_MS = [200, 1000];

// ------------------------------------------------------------------------------ small helpers

function $(sel, root = document) {
  return root.querySelector(sel);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") on(node, k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A node's handlers, by event type: one listener per type calls the newest, so a node kept
// by `patchChildren` answers with the closures of the render that kept it.
const HANDLERS = new WeakMap();

function on(node, type, handler) {
  let handlers = HANDLERS.get(node);
  if (!handlers) {
    handlers = {};
    HANDLERS.set(node, handlers);
  }
  if (!(type in handlers)) node.addEventListener(type, (ev) => HANDLERS.get(node)[type]?.(ev));
  handlers[type] = handler;
}

// Draw `nodes` (fresh, from a render) as `parent`'s children, keeping every node already
// there that is drawn the same way and changing only what differs. A node replaced under a
// finger loses the tap (the press lands on the old button, the release on the new one), and a
// replaced node loses the keyboard's focus: an update arriving as a player taps Ready or a
// bone must not. Handlers must be set with `on` (el's on* attributes); a handler that needs
// its own node takes ev.currentTarget. Returns the children as drawn.
function patchChildren(parent, nodes) {
  const olds = [...parent.childNodes];
  const drawn = nodes.map((node, i) => {
    const old = olds[i];
    if (!old) {
      parent.append(node);
      return node;
    }
    const kept = morph(old, node);
    if (kept !== old) parent.replaceChild(kept, old);
    return kept;
  });
  for (const old of olds.slice(nodes.length)) old.remove();
  return drawn;
}

function morph(old, node) {
  if (old.nodeType !== node.nodeType || old.nodeName !== node.nodeName) return node;
  if (old.nodeType === Node.TEXT_NODE) {
    if (old.data !== node.data) old.data = node.data;
    return old;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) return node;
  for (const attr of [...old.attributes]) {
    if (!node.hasAttribute(attr.name)) old.removeAttribute(attr.name);
  }
  for (const attr of node.attributes) {
    if (old.getAttribute(attr.name) !== attr.value) old.setAttribute(attr.name, attr.value);
  }
  const handlers = HANDLERS.get(old);
  const fresh = HANDLERS.get(node) || {};
  if (handlers) for (const type of Object.keys(handlers)) handlers[type] = fresh[type];
  for (const [type, handler] of Object.entries(fresh)) on(old, type, handler);
  patchChildren(old, [...node.childNodes]);
  return old;
}

function fmt(text, params) {
  return String(text).replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
}

const storage = {
  get(area, key) {
    try {
      return window[area].getItem(key);
    } catch {
      return null;
    }
  },
  set(area, key, value) {
    try {
      window[area].setItem(key, value);
    } catch {
      /* storage full or blocked: memory only */
    }
  },
};

/** A touch screen with no keyboard to speak of: hints about keys would only puzzle. */
function coarsePointer() {
  return !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);
}

function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

function pipsOf(bones) {
  return (bones || []).reduce((sum, b) => sum + parseBone(b).pips, 0);
}

function randomHex(bytes) {
  const buf = new Uint8Array(bytes);
  window.crypto.getRandomValues(buf);
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ------------------------------------------------------------------------------ the page

export function startTable(app) {
  const tableId = app.dataset.tableId;
  const wsPath = app.dataset.wsPath || `/ws/tables/${tableId}/`;
  const userId = app.dataset.userId ? Number(app.dataset.userId) : null;
  const strings = readStrings();
  const sounds = createSounds();
  const SEQ_KEY = `dominologist:table:${tableId}:seq`;
  const WASH_KEY = `dominologist:table:${tableId}:washed`;

  const storedSeq = Number.parseInt(storage.get("sessionStorage", SEQ_KEY) ?? "", 10);
  const state = {
    ws: null,
    lastSeq: Number.isFinite(storedSeq) ? storedSeq : null,
    table: null,
    watchers: 0, // people watching (not part of the table's picture: it changes with no event)
    game: null,
    pending: null, // {id, version, timer}
    selected: null, // canonical bone chosen in the hand
    attempt: 0,
    reconnectTimer: null,
    bannerTimer: null,
    answered: null, // the socket whose hello was answered (a restart close reconnects it at once)
    next: null, // the socket being opened to move to (a restarting server asked the page to)
    movedFrom: null, // the socket moved off (its answers to requests sent on it still count)
    pingTimer: null,
    fatal: false,
    requestCounter: 0,
    lastTurnKey: null,
    connSeq: null, // the newest update drawn on the current socket
    doublesSeen: null, // the doubles shown in the five-doubles dialog
    handFocus: 0,
    drag: null,
    suppressClick: false,
    passingUntil: 0,
    clockOffset: 0, // server time minus this browser's time, in ms
    clockWarned: null,
    chat: [], // the messages shown, oldest first
    unread: 0, // chat messages come while the chat was out of sight
    drawerOpen: false,
    tab: "moves",
    resultShownFor: null, // the game (number) whose result this page has shown
    hint: null, // the coach's hint at a practice table: {version, bone, end} (static/js/coach.js)
    muted: new Set(JSON.parse(storage.get("localStorage", "dominologist:muted") || "[]")),
  };
  window.wsReady = false;

  // -- translations ----------------------------------------------------------------------
  function t(key, params) {
    const text = Object.prototype.hasOwnProperty.call(strings, key) ? strings[key] : key;
    return fmt(text, params);
  }
  function tn(key, n, params = {}) {
    // Plural forms: KEY_one / KEY_other (Intl.PluralRules of the page's language).
    let form = "other";
    try {
      form = new Intl.PluralRules(document.documentElement.lang || "en").select(n);
    } catch {
      form = n === 1 ? "one" : "other";
    }
    const k = strings[`${key}_${form}`] !== undefined ? `${key}_${form}` : `${key}_other`;
    return t(k, { n, ...params });
  }

  // -- the skeleton (server-rendered; found by id) -----------------------------------------
  const ui = {
    title: $("#table-title", app),
    facts: $("#table-facts", app),
    commitment: $("#commitment", app),
    soundToggle: $("#sound-toggle", app),
    scoreStrip: $("#score-strip", app),
    drawer: $("#table-drawer", app),
    drawerToggle: $("#drawer-toggle", app),
    drawerClose: $("#drawer-close", app),
    unread: $("#unread-badge", app),
    tabs: [...app.querySelectorAll('[role="tab"]')],
    banner: $("#conn-banner", app),
    error: $("#table-error", app),
    felt: $("#felt", app),
    others: $("#others", app),
    status: $("#turn-status", app),
    boardWrap: $("#board-wrap", app),
    board: $("#board", app),
    summary: $("#hand-summary", app),
    meBar: $("#me-bar", app),
    rack: $("#rack", app),
    handTitle: $("#hand-title", app),
    handHint: $("#hand-hint", app),
    hand: $("#hand", app),
    yard: $("#yard", app),
    yardBones: $("#yard-bones", app),
    yardTitle: $("#yard-title", app),
    handActions: $("#hand-actions", app),
    scorePad: $("#score-pad", app),
    invite: $("#invite", app),
    log: $("#move-log", app),
    announcer: $("#announcer", app),
    doublesDialog: $("#doubles-dialog", app),
    gameOverDialog: $("#game-over-dialog", app),
    controls: $("#table-controls", app),
    chatLog: $("#chat-log", app),
    chatBox: $("#chat-box", app), // the chat's scrolling log around its list
    chatForm: $("#chat-form", app),
    chatInput: $("#chat-input", app),
    chatQuick: $("#chat-quick", app),
    chatNote: $("#chat-note", app),
    reportDialog: $("#report-dialog", app),
  };
  if (reducedMotion()) document.documentElement.classList.add("reduced-motion");

  // The screen-reader mode (static/js/reader.js): moves in words, and play by typing.
  const reader = createReader(app, {
    t,
    tn,
    game: () => state.game,
    mySeat,
    legal,
    pending: () => !!state.pending,
    act,
    seatName,
    sideName,
    sideOf,
    partners,
    settings,
    clockLeft,
    canonicalBone,
    parseBone,
  });

  // ======================================================================== the connection

  function socketUrl() {
    if (/^wss?:\/\//.test(wsPath)) return wsPath;
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${window.location.host}${wsPath}`;
  }

  function send(msg) {
    const ws = state.ws;
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  function hello() {
    // `log`: the answer also brings the recent moves, so a page opened mid-game has its move list.
    return send({ type: "hello", last_seq: state.lastSeq, log: true });
  }

  function connect() {
    clearTimeout(state.reconnectTimer);
    clearInterval(state.bannerTimer);
    if (state.fatal) return;
    let ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch {
      scheduleReconnect();
      return;
    }
    state.ws = ws;
    state.connSeq = null;
    ws.addEventListener("open", () => {
      if (state.ws !== ws) return;
      hello();
      startPing();
      if (state.attempt > 0) showBanner(t("catching_up"), { busy: true });
    });
    wire(ws);
  }

  // A socket's messages and its end, once it is the page's socket.
  function wire(ws) {
    ws.addEventListener("message", (ev) => {
      if (state.ws !== ws && state.movedFrom !== ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (!msg || typeof msg !== "object") return;
      // A socket moved off still answers the requests sent on it: nothing else from it counts.
      if (state.ws !== ws && msg.type !== "ack" && msg.type !== "error") return;
      handle(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (state.ws !== ws) return;
      state.ws = null;
      window.wsReady = false;
      stopPing();
      clearPending();
      if (Object.prototype.hasOwnProperty.call(FATAL_CLOSE, ev.code)) {
        // A `suspended` message before the close already said why, in more words: keep it.
        if (!state.fatal) fatal(t(FATAL_CLOSE[ev.code]));
        return;
      }
      if (state.fatal) return;
      // Closed while moving (1012: the move took long): the new socket, on its way, takes over.
      if (state.next && ev.code === RESTART_CLOSE) {
        showBanner(t("catching_up"), { busy: true });
        return;
      }
      // A restart closing a socket that was working: at once. One that closes a socket never
      // answered is a failure like any other (no tight loop of reconnections).
      if (ev.code === RESTART_CLOSE && state.answered === ws) reconnectSoon();
      else scheduleReconnect(0, state.answered === ws);
    });
    ws.addEventListener("error", () => {
      /* a close follows */
    });
    return ws;
  }

  // The server restarts: open a socket elsewhere while this one still works, and change over
  // when the new one's hello is answered. If the new one fails, nothing changes here: the
  // server closes the old socket with 1012 a little later, and the page reconnects then.
  function moveSocket() {
    if (state.next || state.fatal || !state.ws) return;
    const old = state.ws;
    let ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch {
      return;
    }
    state.next = ws;
    ws.addEventListener("open", () => {
      if (state.next !== ws) return;
      ws.send(JSON.stringify({ type: "hello", last_seq: state.lastSeq, log: false }));
    });
    ws.addEventListener("message", (ev) => {
      if (state.next !== ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      // Until the answer, the old socket carries every update: what comes here first is dropped.
      if (!msg || (msg.type !== "snapshot" && msg.type !== "resume")) return;
      state.next = null;
      if (state.ws !== old && state.ws !== null) {
        ws.close(MOVED_CLOSE);
        return;
      }
      // (The old socket may have been closed meanwhile (1012): this one takes over all the same.)
      state.ws = ws;
      state.movedFrom = old;
      state.connSeq = state.lastSeq; // drawn already (by the old socket): not drawn twice
      state.answered = ws;
      wire(ws);
      if (!state.pingTimer) startPing();
      handle(msg);
      // Closed once it has answered what was sent on it (a move in flight: 2 s at most).
      const closeOld = (tries) => {
        if (!state.pending || tries >= 20) old.close(MOVED_CLOSE);
        else setTimeout(() => closeOld(tries + 1), 100);
      };
      closeOld(0);
    });
    ws.addEventListener("close", () => {
      if (state.next !== ws) return;
      state.next = null;
      if (state.ws === null && !state.fatal) reconnectSoon(); // the old one is gone too
    });
  }

  function reconnectSoon() {
    clearTimeout(state.reconnectTimer);
    clearInterval(state.bannerTimer);
    showBanner(t("catching_up"), { busy: true });
    state.reconnectTimer = setTimeout(connect, Math.random() * RESTART_JITTER_MS);
  }

  function scheduleReconnect(extraSteps = 0, wasWorking = false) {
    state.attempt += 1;
    const [soonest, latest] = FIRST_RETRY_MS;
    const delay =
      wasWorking && state.attempt === 1 && extraSteps === 0
        ? soonest + Math.random() * (latest - soonest)
        : Math.min(15, 2 ** (state.attempt - 1 + extraSteps)) * 1000;
    const due = Date.now() + delay;
    const tick = () => {
      const left = Math.max(0, due - Date.now());
      showBanner(t("reconnecting", { attempt: state.attempt, seconds: Math.ceil(left / 1000) }), {
        busy: true,
        progress: { value: delay - left, max: delay },
        retry: true,
      });
    };
    tick();
    clearInterval(state.bannerTimer);
    state.bannerTimer = setInterval(tick, 250);
    clearTimeout(state.reconnectTimer);
    state.reconnectTimer = setTimeout(() => {
      clearInterval(state.bannerTimer);
      showBanner(t("connecting"), { busy: true });
      connect();
    }, delay);
  }

  function startPing() {
    stopPing();
    state.pingTimer = setInterval(() => send({ type: "ping" }), PING_MS);
  }
  function stopPing() {
    clearInterval(state.pingTimer);
    state.pingTimer = null;
  }

  function fatal(message) {
    state.fatal = true;
    clearTimeout(state.reconnectTimer);
    clearInterval(state.bannerTimer);
    stopPing();
    showBanner(message, { error: true });
    render();
  }

  function showBanner(text, opts = {}) {
    const b = ui.banner;
    if (!b) return;
    if (!text) {
      b.classList.remove("shown", "error");
      b.replaceChildren();
      return;
    }
    b.classList.add("shown");
    b.classList.toggle("error", !!opts.error);
    const parts = [];
    if (opts.busy && !reducedMotion()) parts.push(el("span", { class: "spinner-dot", "aria-hidden": "true" }));
    parts.push(el("span", { class: "banner-text" }, text));
    if (opts.progress) {
      parts.push(
        el("progress", {
          max: String(opts.progress.max),
          value: String(Math.round(opts.progress.value)),
          "aria-label": t("reconnect_progress"),
        }),
      );
    }
    if (opts.retry) {
      parts.push(
        el("button", {
          type: "button",
          class: "btn btn-small",
          text: t("retry_now"),
          onclick: () => {
            clearTimeout(state.reconnectTimer);
            clearInterval(state.bannerTimer);
            showBanner(t("connecting"), { busy: true });
            connect();
          },
        }),
      );
    }
    // Keep focus on the retry button when the banner redraws every tick.
    const hadFocus = b.contains(document.activeElement) && document.activeElement.tagName === "BUTTON";
    const textNode = b.querySelector(".banner-text");
    if (textNode && opts.progress && b.querySelector("progress") && b.querySelector("button")) {
      textNode.textContent = text;
      const p = b.querySelector("progress");
      p.max = opts.progress.max;
      p.value = Math.round(opts.progress.value);
      return;
    }
    b.replaceChildren(...parts);
    if (hadFocus) b.querySelector("button")?.focus();
  }

  // ======================================================================== the Gym clock

  // The server's clock, as best this browser knows it: the offset is the largest of the recent
  // (server time - arrival time) samples, since a message's delay only ever makes it look smaller.
  const offsets = [];
  function noteServerTime(serverMs) {
    offsets.push(serverMs - Date.now());
    if (offsets.length > 12) offsets.shift();
    state.clockOffset = Math.max(...offsets);
  }

  function serverNow() {
    return Date.now() + (state.clockOffset || 0);
  }

  /** Milliseconds left to press Ready at a table Play now seated this player at (0: none). */
  function readyLeft() {
    const by = Number(app.dataset.readyBy || 0);
    return by > 0 ? Math.max(0, by - serverNow()) : 0;
  }
  // A seat filled again gives its new player their own time: the notice says until when.
  document.addEventListener("dominologist:notice", (event) => {
    const notice = event.detail || {};
    if (notice.kind === "pairing_seated" && String(notice.table) === String(tableId)) {
      app.dataset.readyBy = String(notice.confirm_by || "");
      renderStatus();
    }
  });

  /** Milliseconds until the turn clock starts (a Gym table waiting for the hand's summary to be
   * read: docs/protocol.md); 0 when it runs. */
  function clockWait() {
    const starts = state.game?.clock?.starts;
    return typeof starts === "number" ? Math.max(0, starts - serverNow()) : 0;
  }

  /** Milliseconds left on the turn clock, from the server's deadline; null when none runs. */
  function clockLeft() {
    const clock = state.game?.clock;
    if (!clock || typeof clock.deadline !== "number" || state.game.phase === "game_over") return null;
    return Math.max(0, clock.deadline - serverNow());
  }

  /** A seat's own full turn clock in seconds: the table's, or the shorter one the seat chose
   *  (`clock.seats`, docs/protocol.md). */
  function seatClock(seat) {
    const clock = state.game?.clock;
    if (!clock) return null;
    const own = clock.seats?.[String(seat)];
    return typeof own === "number" ? own : clock.seconds;
  }

  function clockBar(seat) {
    const left = clockLeft();
    if (left === null || state.game.to_act !== seat) return null;
    const bar = el("div", { class: "clock", role: "timer", "data-clock": "", title: t("clock_help") },
      el("span", { class: "clock-fill" }),
      el("span", { class: "clock-text" }),
    );
    bar.dataset.seconds = String(seatClock(seat));
    paintClock(bar, left);
    return bar;
  }

  function paintClock(bar, left) {
    const wait = clockWait();
    bar.classList.toggle("waiting", wait > 0);
    if (wait > 0) {
      // Not running yet: full, and says when it will.
      bar.classList.remove("warn", "danger");
      bar.querySelector(".clock-fill").style.width = "100%";
      const n = Math.ceil(wait / 1000);
      const text = t("clock_starts_in", { n });
      const label = bar.querySelector(".clock-text");
      if (label.textContent !== text) label.textContent = text;
      bar.setAttribute("aria-label", t("clock_waits", { n }));
      bar.title = t("clock_waits", { n });
      return;
    }
    if (bar.title !== t("clock_help")) {
      bar.title = t("clock_help");
    }
    const total = Number(bar.dataset.seconds) * 1000 || 1;
    const fraction = Math.max(0, Math.min(1, left / total));
    const seconds = Math.ceil(left / 1000);
    bar.classList.toggle("warn", fraction <= 0.5 && fraction > 0.25);
    bar.classList.toggle("danger", fraction <= 0.25);
    bar.querySelector(".clock-fill").style.width = `${(fraction * 100).toFixed(1)}%`;
    const text = left > 0 ? t("clock_left", { n: seconds }) : t("clock_out");
    const label = bar.querySelector(".clock-text");
    if (label.textContent !== text) label.textContent = text;
    bar.setAttribute("aria-label", t("clock_label", { n: seconds }));
  }

  // One ticker redraws every bar on the page; it stops when no clock runs.
  let clockTicker = 0;
  function tickClock() {
    clearInterval(clockTicker);
    clockTicker = 0;
    if (clockLeft() === null && !document.querySelector("[data-grace]")) return;
    clockTicker = setInterval(() => {
      const left = clockLeft();
      const bars = document.querySelectorAll("[data-clock]");
      const graces = document.querySelectorAll("[data-grace]");
      for (const tag of graces) {
        const wasOver = tag.dataset.over === "1";
        paintGrace(tag);
        if (!wasOver && tag.dataset.over === "1") renderControls();
      }
      if ((left === null || !bars.length) && !graces.length) {
        clearInterval(clockTicker);
        clockTicker = 0;
        return;
      }
      if (left === null) return;
      for (const bar of bars) paintClock(bar, left);
      const me = mySeat();
      if (clockWait() > 0) return;
      const warnAt = Math.min(3000, Number(seatClock(state.game.to_act)) * 500);
      const key = `${state.game.version}`;
      if (me !== null && state.game.to_act === me && left > 0 && left <= warnAt && state.clockWarned !== key) {
        state.clockWarned = key;
        announce(t("clock_hurry", { n: Math.ceil(left / 1000) }));
        sounds.play("turn");
      }
    }, 100);
  }

  function popDumbbell(seat) {
    const target = floatOnSeat(seat, t("dumbbell_pop"), "dumbbell-pop");
    if (!target) return;
    target.classList.add("took-dumbbell");
    setTimeout(() => target.classList.remove("took-dumbbell"), 1200);
  }

  // ======================================================================== leaving, rematch

  function paintGrace(tag) {
    const left = Number(tag.dataset.grace) - serverNow();
    if (left > 0) {
      tag.textContent = t("away_for", { n: Math.ceil(left / 1000) });
      tag.dataset.over = "0";
    } else {
      const rule = seatCount() === 2 ? "away_claimable" : state.table?.on_leave === "forfeit" ? "away_forfeits" : "away_waiting";
      tag.textContent = t(rule);
      tag.dataset.over = "1";
    }
  }

  function confirmThen(message, fn) {
    return () => {
      if (window.confirm(message)) fn();
    };
  }

  function renderControls() {
    const box = ui.controls;
    if (!box) return;
    const table = state.table;
    const game = state.game;
    const me = mySeat();
    const items = [];
    if (table && game && me !== null && game.phase !== "game_over" && table.status === "playing") {
      if (game.deal <= 1 && !game.board?.lead) {
        items.push(
          el("button", { type: "button", class: "btn btn-small btn-quiet", "data-abort": "", text: t("abort"), title: t("abort_help"),
            onclick: confirmThen(t("abort_confirm"), () => send({ type: "abort" })) }),
        );
      }
      // An arena's berserk, at the table: halve your own clock before your first move (the
      // server refuses it after; the button then goes). A win scores a point more.
      const halved = game.clock?.seats && String(me) in game.clock.seats;
      if (table.clock_halving && game.clock && game.deal <= 1 && !halved && state.berserkGone !== table.game_number) {
        items.push(
          el("button", { type: "button", class: "btn btn-small", "data-berserk": "", text: t("berserk"), title: t("berserk_help"),
            onclick: confirmThen(t("berserk_confirm"), () => send({ type: "halve_clock" })) }),
        );
      }
      if (seatCount() === 2) {
        const other = (table.seats || []).find((s) => s.number !== me);
        if (other && other.grace_until && serverNow() >= other.grace_until) {
          items.push(
            el("p", { class: "help" }, t("claim_help", { name: other.player?.name || "" })),
            el("button", { type: "button", class: "btn btn-small", "data-claim": "", text: t("claim"),
              onclick: confirmThen(t("claim_confirm"), () => send({ type: "claim" })) }),
          );
        }
      }
    }
    if (table && table.status === "finished" && me !== null) {
      const seats = table.seats || [];
      const mine = seats.find((s) => s.number === me);
      const wanting = seats.filter((s) => s.rematch && s.number !== me).map((s) => s.player?.name).filter(Boolean);
      if (wanting.length) items.push(el("p", { class: "help" }, t("rematch_wanted", { names: wanting.join(", ") })));
      items.push(
        el("button", {
          type: "button",
          class: `btn btn-small${mine?.rematch ? " btn-quiet" : ""}`,
          "data-rematch": "",
          "aria-pressed": mine?.rematch ? "true" : "false",
          text: mine?.rematch ? t("rematch_take_back") : wanting.length ? t("rematch_accept") : t("rematch_offer"),
          onclick: () => send({ type: "rematch", want: !mine?.rematch }),
        }),
      );
    }
    box.replaceChildren(...items);
    box.hidden = items.length === 0;
  }

  // ======================================================================== chat

  const QUICK = ["gg", "nice", "thanks", "luck", "oops", "wow", "sorry", "think"];

  function saveMuted() {
    storage.set("localStorage", "dominologist:muted", JSON.stringify([...state.muted]));
  }

  function toggleMute(who) {
    if (state.muted.has(who)) state.muted.delete(who);
    else state.muted.add(who);
    saveMuted();
    renderChat();
  }

  function chatLine(m) {
    const mine = m.user.id === userId;
    const muted = state.muted.has(m.user.id);
    const who = el("strong", { class: "chat-who" }, m.user.name, botTag(state.table?.seats?.find((x) => x.player?.id === m.user.id)?.player));
    const marks = [];
    if (m.audience === "spectators") marks.push(el("span", { class: "chat-tag" }, t("chat_watching")));
    let body;
    if (muted) body = el("span", { class: "chat-muted" }, t("chat_muted_line"));
    else if (m.kind === "emote") body = el("span", { class: "chat-text emote" }, emoteNode(m.text, 26));
    else body = el("span", { class: "chat-text" }, m.kind === "quick" ? t(`quick_${m.text}`) : m.text);
    const tools = [];
    if (!mine) {
      tools.push(
        el("button", { type: "button", class: "chat-tool", "aria-pressed": muted ? "true" : "false", "aria-label": t(muted ? "unmute_name" : "mute_name", { name: m.user.name }), text: muted ? t("unmute") : t("mute"), onclick: () => toggleMute(m.user.id) }),
        el("button", { type: "button", class: "chat-tool", "aria-label": t("report_name", { name: m.user.name }), text: t("report"), onclick: () => openReport(m.user) }),
      );
    }
    return el("li", { class: `chat-line${mine ? " mine" : ""}`, "data-chat-id": String(m.id) }, who, ...marks, " ", body, tools.length ? el("span", { class: "chat-tools" }, ...tools) : null);
  }

  function renderChat() {
    if (!ui.chatLog) return;
    ui.chatLog.replaceChildren(...state.chat.map(chatLine));
    ui.chatBox.scrollTop = ui.chatBox.scrollHeight;
  }

  /** An emote as the site's own icon (never the emoji itself: a device may lack the font). */
  function emoteNode(value, size) {
    const emote = emoteOf(value);
    if (!emote) return el("span", { class: "chat-muted" }, t("emote_unknown"));
    return emoteIcon(emote, { size, label: t(emote.key) });
  }

  function addChat(m) {
    if (!m || state.chat.some((x) => x.id === m.id)) return;
    state.chat.push(m);
    if (state.chat.length > 100) state.chat.shift();
    if (!ui.chatLog) return;
    ui.chatLog.append(chatLine(m));
    while (ui.chatLog.children.length > 100) ui.chatLog.firstElementChild.remove();
    ui.chatBox.scrollTop = ui.chatBox.scrollHeight;
    const mine = m.user.id === userId;
    if (!mine && !state.muted.has(m.user.id)) {
      sounds.play("chat");
      if (!chatInView()) {
        state.unread += 1;
        renderUnread();
        // A short word over the speaker's seat, so a player need not open the drawer to see it.
        const seat = (state.table?.seats || []).find((s) => s.player?.id === m.user.id);
        if (seat && m.kind !== "text") {
          const label = m.kind === "emote" ? emoteNode(m.text, 34) : t(`quick_${m.text}`);
          floatOnSeat(seat.number, label, "chat-pop");
        }
      }
    }
  }

  function chatInView() {
    return drawerShown() && state.tab === "chat" && document.visibilityState !== "hidden";
  }

  function renderUnread() {
    const n = state.unread;
    for (const badge of [ui.unread, ...app.querySelectorAll("[data-unread]")]) {
      if (!badge) continue;
      badge.hidden = n === 0;
      badge.textContent = n > 9 ? "9+" : String(n);
    }
    ui.drawerToggle?.setAttribute("aria-label", n ? t("drawer_unread", { n }) : t("drawer_label"));
  }

  function setupChat() {
    if (ui.chatQuick) {
      ui.chatQuick.replaceChildren(
        el(
          "div",
          { class: "quick-phrases" },
          QUICK.map((k) => el("button", { type: "button", class: "btn btn-small btn-quiet", text: t(`quick_${k}`), onclick: () => send({ type: "chat", quick: k }) })),
        ),
        el(
          "div",
          { class: "quick-emotes" },
          EMOTES.map((e) =>
            el(
              "button",
              { type: "button", class: "btn btn-small btn-quiet emote", "data-emote": e.key, "aria-label": t("send_emote", { emote: t(e.key) }), title: t(e.key), onclick: () => send({ type: "chat", emote: e.value }) },
              emoteIcon(e, { size: 24 }),
            ),
          ),
        ),
      );
    }
    ui.chatForm?.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = ui.chatInput.value.trim();
      if (!text) return;
      send({ type: "chat", text });
      ui.chatInput.value = "";
    });
  }

  function openReport(user) {
    const d = ui.reportDialog;
    if (!d) return;
    d.querySelector("[data-report-name]").textContent = user.name;
    const reason = d.querySelector("textarea");
    reason.value = "";
    d.querySelector("form").onsubmit = (ev) => {
      ev.preventDefault();
      if (ev.submitter?.value === "report") send({ type: "report", user: user.id, reason: reason.value.trim() || null });
      d.close();
    };
    if (typeof d.showModal === "function") d.showModal();
    else d.setAttribute("open", "");
    reason.focus();
  }

  // ======================================================================== messages

  function handle(msg) {
    if (typeof msg.server_time === "number") noteServerTime(msg.server_time);
    switch (msg.type) {
      case "snapshot":
      case "resume":
        // The server sends no update before its answer to hello; never step back all the same.
        if (state.connSeq !== null && typeof msg.seq === "number" && msg.seq < state.connSeq) {
          markReady();
          return;
        }
        if (typeof msg.watchers === "number") state.watchers = msg.watchers;
        if (Array.isArray(msg.chat)) {
          state.chat = msg.chat;
          renderChat();
        }
        applyPicture(msg, msg.type === "resume" ? flattenEvents(msg.events, state.connSeq) : [], {
          full: true,
          resume: msg.type === "resume",
          log: Array.isArray(msg.log) ? msg.log : null,
        });
        break;
      case "update":
        if (state.lastSeq !== null && typeof msg.seq === "number" && msg.seq <= state.lastSeq) return; // seen
        if (state.lastSeq !== null && typeof msg.seq === "number" && msg.seq > state.lastSeq + 1) {
          // An update went missing on the way (a channel layer may drop one): resume from the last seen.
          hello();
          return;
        }
        applyPicture(msg, flattenEvents(msg.events), {});
        if (typeof msg.seq === "number") state.connSeq = msg.seq;
        break;
      case "ack":
        if (state.pending && msg.request_id === state.pending.id) clearPending();
        render();
        break;
      case "error":
        onError(msg);
        break;
      case "pong":
        break;
      case "watchers":
        if (typeof msg.watchers === "number") state.watchers = msg.watchers;
        renderHead();
        break;
      case "chat":
        addChat(msg.message);
        break;
      case "reported":
        addLog(t("report_sent"), "");
        announce(t("report_sent"));
        break;
      case "reconnect":
        moveSocket();
        break;
      case "suspended":
        fatal(msg.message || t("closed_not_allowed"));
        break;
      default:
        break;
    }
  }

  /** Events come flat in an update; a resume may bring them in batches, {seq, events} each. */
  function flattenEvents(list, after = null) {
    if (!Array.isArray(list)) return [];
    const out = [];
    for (const item of list) {
      if (item && Array.isArray(item.events) && item.type === undefined) {
        if (after === null || typeof item.seq !== "number" || item.seq > after) out.push(...item.events);
      }
      else if (item && typeof item === "object") out.push(item);
    }
    return out;
  }

  function applyPicture(msg, events, { full = false, resume = false, log = null }) {
    if (msg.table !== undefined) state.table = msg.table;
    if (msg.game !== undefined) state.game = msg.game;
    const game = state.game;
    if (state.pending && game && game.version !== undefined && game.version !== state.pending.version) clearPending();
    if (!game) clearPending();

    reader.begin();
    if (log) drawLog(log); // the whole recent log: the events below add no second line
    for (const ev of events) onEvent(ev, { replay: resume, noLog: !!log });
    const gameKey = state.table?.game_number ?? null;
    if (events.some((ev) => ev.type === "game_over")) state.resultShownFor = gameKey;
    if (full && game?.phase === "game_over" && game.game && state.resultShownFor !== gameKey) {
      // A page opened on a finished game shows its result (once; Close keeps it closed).
      state.resultShownFor = gameKey;
      showGameOver(resultEvent(game));
    }

    // Forget a chosen bone that is no longer playable.
    if (state.selected && !playsFor(state.selected).length) state.selected = null;

    if (!summaryOpen()) state.summaryBoard = null;
    render();
    reader.end();
    maybeWash();
    summarySeen();
    while (pendingDumbbells.length) popDumbbell(pendingDumbbells.shift());
    tickClock();

    if (typeof msg.seq === "number") {
      state.lastSeq = msg.seq;
      storage.set("sessionStorage", SEQ_KEY, String(msg.seq));
      document.body.dataset.seq = String(msg.seq);
      window.lastDrawnSeq = msg.seq;
    }
    if (full) markReady();
  }

  function markReady() {
    if (!state.ws || state.ws.readyState !== 1) return;
    state.answered = state.ws;
    state.attempt = 0;
    showBanner(null);
    window.wsReady = true;
    render();
  }

  function onError(msg) {
    const mine = state.pending && msg.request_id && msg.request_id === state.pending.id;
    if (msg.code === "stale") {
      // The game moved on: quietly catch up.
      clearPending();
      hello();
      render();
      return;
    }
    if (mine) clearPending();
    if (msg.code === "bad_wash") return; // a wash for a hand already dealt: nothing to tell
    // Berserk too late (a move made) or not possible: the button goes for this game.
    if (["already_moved", "clock_halved", "clock_too_short", "no_clock"].includes(msg.code)) {
      state.berserkGone = state.table?.game_number ?? null;
    }
    showError(msg.message || t("error_generic"));
    sounds.play("error");
    render();
  }

  let errorTimer = null;
  function showError(text) {
    if (!ui.error) return;
    ui.error.textContent = text;
    clearTimeout(errorTimer);
    errorTimer = setTimeout(() => {
      ui.error.textContent = "";
    }, 9000);
  }

  // ======================================================================== game actions

  function act(action) {
    const game = state.game;
    if (!game || state.pending || !state.ws) return false;
    const id = `c-${Date.now().toString(36)}-${++state.requestCounter}`;
    const version = game.version;
    if (!send({ type: "act", version, request_id: id, action })) return false;
    state.pending = {
      id,
      version,
      timer: setTimeout(() => {
        // No answer: ask for the picture again rather than leave the hand locked.
        clearPending();
        hello();
        render();
      }, ACT_TIMEOUT_MS),
    };
    state.selected = null;
    render();
    return true;
  }

  function clearPending() {
    if (state.pending) clearTimeout(state.pending.timer);
    state.pending = null;
  }

  function mySeat() {
    const s = state.table?.you?.seat;
    return typeof s === "number" ? s : null;
  }

  function legal() {
    const g = state.game;
    if (!g || !Array.isArray(g.legal_actions)) return [];
    if (mySeat() === null || g.to_act !== mySeat()) return [];
    return g.legal_actions;
  }

  /** The ends a bone may go on now ([null] for a lead). */
  function playsFor(bone) {
    const key = canonicalBone(bone);
    return legal()
      .filter((a) => a.type === "play" && canonicalBone(a.bone) === key)
      .map((a) => (a.end === undefined ? null : a.end));
  }

  function playBone(bone, end) {
    const ends = playsFor(bone);
    if (!ends.length) return;
    const action = legal().find((a) => a.type === "play" && canonicalBone(a.bone) === canonicalBone(bone) && (a.end ?? null) === (end ?? null));
    if (!action) return;
    const out = { type: "play", bone: action.bone };
    if (action.end) out.end = action.end;
    sounds.unlock();
    act(out);
  }

  function chooseBone(bone, viaKeyboard) {
    if (state.pending) return;
    const ends = playsFor(bone);
    const g = state.game;
    if (!g || mySeat() === null) return;
    if (g.to_act !== mySeat()) {
      hint(t("not_your_turn"));
      return;
    }
    if (!ends.length) {
      const draws = legal().some((a) => a.type === "draw");
      hint(draws ? t("must_draw") : t("bone_does_not_fit", { bone: canonicalBone(bone) }));
      return;
    }
    if (ends.length === 1) {
      playBone(bone, ends[0]);
      return;
    }
    if (state.selected === canonicalBone(bone)) {
      state.selected = null;
      render();
      return;
    }
    state.selected = canonicalBone(bone);
    render();
    announce(t("choose_end", { bone: canonicalBone(bone), ends: ends.map((e) => t(`end_${e}`)).join(", ") }));
    if (viaKeyboard) ui.board?.querySelector(".end-target.lit")?.focus();
  }

  function onEndActivated(end) {
    if (state.pending) return;
    if (!state.selected) {
      // Only one bone fits this end? Then the end alone says enough.
      const fits = legal().filter((a) => a.type === "play" && a.end === end);
      const bones = [...new Set(fits.map((a) => canonicalBone(a.bone)))];
      if (bones.length === 1 && playsFor(bones[0]).length === 1) {
        playBone(bones[0], end);
        return;
      }
      hint(legal().length ? t("choose_bone_first") : t("not_your_turn"));
      return;
    }
    const ends = playsFor(state.selected);
    if (!ends.includes(end)) {
      hint(t("bone_not_on_end", { bone: state.selected, end: t(`end_${end}`) }));
      return;
    }
    const fromBoard = ui.board?.contains(document.activeElement);
    playBone(state.selected, end);
    if (fromBoard) focusHand();
  }

  /** Straight to the hand or the board: the "Skip to your hand" link, and the keys H and B
   *  (not while typing, not with a modifier). The board's first lit end, else its first end. */
  function focusBoard() {
    const ends = [...(ui.board?.querySelectorAll(".end-target") || [])];
    const end = ends.find((e) => e.getAttribute("aria-disabled") !== "true") || ends[0];
    (end || ui.boardWrap)?.focus();
  }

  function wireJumps() {
    document.querySelector("[data-skip-hand]")?.addEventListener("click", (ev) => {
      ev.preventDefault();
      if (ui.rack && !ui.rack.hidden && ui.hand?.querySelector(".hand-bone")) focusHand();
      else focusBoard();
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
      if (ev.target.closest?.("input, textarea, select, [contenteditable], dialog")) return;
      const key = ev.key.toLowerCase();
      if (key === "h" && ui.rack && !ui.rack.hidden && ui.hand?.querySelector(".hand-bone")) {
        ev.preventDefault();
        focusHand();
      } else if (key === "b") {
        ev.preventDefault();
        focusBoard();
      }
    });
  }

  function cancelSelection() {
    if (!state.selected) return false;
    state.selected = null;
    render();
    ui.hand?.querySelector('.hand-bone[tabindex="0"]')?.focus();
    return true;
  }

  // ======================================================================== washes

  function maybeWash() {
    const c = state.table?.commitment;
    if (!c || typeof c.hand !== "number") return;
    const seat = mySeat();
    if (seat === null) return;
    const g = state.game;
    // After the game nothing more is dealt (a rematch deals its first hand from the house's seed).
    if (g?.phase === "game_over" || (state.table?.status && !["open", "playing"].includes(state.table.status))) return;
    if (g && g.phase === "awaiting_deal" && Array.isArray(g.wash?.seats) && !g.wash.seats.includes(seat)) return;
    if (g && g.phase !== "awaiting_deal" && typeof g.deal === "number" && g.deal >= c.hand) return; // dealt already
    let washed = [];
    try {
      washed = JSON.parse(storage.get("sessionStorage", WASH_KEY) || "[]");
    } catch {
      washed = [];
    }
    if (!Array.isArray(washed)) washed = [];
    const key = `${state.table?.game_number ?? 0}:${c.hand}`; // hands count again in a new game
    if (washed.includes(key)) return;
    if (!window.crypto || !window.crypto.getRandomValues) return;
    if (!send({ type: "wash", hand: c.hand, entropy: randomHex(32) })) return;
    washed.push(key);
    storage.set("sessionStorage", WASH_KEY, JSON.stringify(washed.slice(-30)));
  }

  // ======================================================================== names

  function seatInfo(seat) {
    return state.table?.seats?.find((x) => x.number === seat) ?? state.table?.seats?.[seat] ?? null;
  }

  /** A player's name as the page shows it. A house player's account name ends in the English
   *  "(house)" and starts with its level: both are said in the page's language instead. */
  function playerLabel(player) {
    if (!player) return "";
    if (!player.house) return player.name;
    const bare = String(player.name).replace(/\s*\(house\)$/, "");
    const level = player.house.charAt(0).toUpperCase() + player.house.slice(1);
    const first = bare.startsWith(`${level} `) ? bare.slice(level.length + 1) : "";
    return first ? t("house_name", { level: t(`level_${player.house}`), first }) : bare;
  }

  /** The shortest name that still tells players apart at a glance (the score strip). */
  function playerShort(player) {
    if (!player) return "";
    if (!player.house) return player.name;
    const bare = String(player.name).replace(/\s*\(house\)$/, "");
    return bare.split(" ").slice(1).join(" ") || bare;
  }

  /** A seat's player in a sentence: a house player is marked as one. */
  function seatName(seat) {
    const player = seatInfo(seat)?.player;
    if (!player) return t("seat_n", { n: seat + 1 });
    if (player.bot) return t("bot_marked", { name: player.name });
    return player.house ? t("house_marked", { name: playerLabel(player) }) : player.name;
  }

  /** The BOT mark after a bot account's name: "BOT" to the eye, "(bot)" to a screen reader. */
  function botTag(player) {
    if (!player?.bot) return null;
    return el("span", { class: "tag bot", title: t("bot_help") }, el("span", { "aria-hidden": "true" }, t("bot_short")), el("span", { class: "visually-hidden" }, ` ${t("bot_sr")}`));
  }

  function isPartner(seat) {
    const me = mySeat();
    return partners() && me !== null && seat !== me && sideOf(seat) === sideOf(me);
  }

  function settings() {
    return state.game?.settings || state.table?.settings || {};
  }

  function seatCount() {
    return state.table?.seats?.length || settings().players || state.game?.hand_sizes?.length || 0;
  }

  function partners() {
    return !!settings().partners;
  }

  function sideCount() {
    return state.game?.rules?.sides ?? (partners() ? 2 : seatCount());
  }

  function sideOf(seat) {
    return partners() ? seat % 2 : seat;
  }

  function seatsOf(side) {
    return partners() ? [side, side + 2] : [side];
  }

  function sideName(side) {
    if (side === null || side === undefined) return "";
    const seats = seatsOf(side);
    if (seats.length === 2) return t("partners_name", { a: seatName(seats[0]), b: seatName(seats[1]) });
    return seatName(seats[0]);
  }

  // ======================================================================== events

  let lastActor = null;
  const pendingDumbbells = [];

  /**
   * One event: its line in the move log, and what it does on the page (sounds, floating scores,
   * the summary and game-over dialog). `replay`: caught up on reconnecting (no sounds or floats);
   * `logOnly`: only the line, when the log is drawn again from the server's (the page was opened
   * or reloaded); `noLog`: only the effects (the log came whole with the same message).
   */
  function onEvent(ev, { replay = false, logOnly = false, noLog = false } = {}) {
    const name = (s) => seatName(s);
    const live = !replay && !logOnly;
    let text = null;
    let cls = "";
    switch (ev.type) {
      case "seat_taken":
        text = t("log_seat_taken", { name: ev.player ? (ev.player.house ? t("house_marked", { name: playerLabel(ev.player) }) : ev.player.name) : name(ev.seat), seat: ev.seat + 1 });
        break;
      case "seat_left":
        text = t("log_seat_left", { seat: ev.seat + 1 });
        break;
      case "ready":
        text = t(ev.ready ? "log_ready" : "log_not_ready", { name: name(ev.seat) });
        break;
      case "removed":
        text = t("log_removed", { seat: ev.seat + 1 });
        break;
      case "game_started":
        text = t("log_game_started");
        cls = "hand";
        break;
      case "wash":
        text = t("log_wash");
        break;
      case "dealt":
        if (!logOnly) state.doublesSeen = null;
        text = t("log_dealt", { deal: ev.deal ?? ev.hand ?? "" });
        cls = "hand";
        break;
      case "lead":
        text = t(`log_lead_${ev.reason}`, { name: name(ev.seat) });
        if (text === `log_lead_${ev.reason}`) text = t("log_lead", { name: name(ev.seat) });
        break;
      case "doubles_to_choose":
        text = t("log_doubles_to_choose", { name: name(ev.seat) });
        if (ev.doubles && !logOnly) state.doublesSeen = ev.doubles;
        break;
      case "doubles_chosen":
        text = t(ev.choice === "play" ? "log_doubles_play" : "log_doubles_reshuffle", { name: name(ev.seat) });
        break;
      case "bone_played":
        if (!logOnly) {
          lastActor = ev.seat;
          if (summaryOpen()) state.summaryBoard = null; // the next hand's bones go down: show them
          summaryMayGo();
        }
        text = ev.end
          ? t("log_played", { name: name(ev.seat), bone: canonicalBone(ev.bone), end: t(`end_${ev.end}`), count: ev.count })
          : t("log_led", { name: name(ev.seat), bone: canonicalBone(ev.bone), count: ev.count });
        if (live) sounds.play("play");
        break;
      case "drew":
        if (!logOnly) lastActor = ev.seat;
        text = ev.bone
          ? t("log_drew_own", { bone: canonicalBone(ev.bone), yard: ev.yard })
          : t("log_drew", { name: name(ev.seat), yard: ev.yard });
        if (live) sounds.play("draw");
        break;
      case "passed":
        text = t("log_passed", { name: name(ev.seat) });
        if (live) {
          sounds.play("pass");
          if (ev.seat === mySeat()) {
            state.passingUntil = Date.now() + 2500;
            setTimeout(render, 2600);
          }
        }
        break;
      case "scored": {
        const reason = ev.reason || "ends";
        text = t(`log_scored_${reason}`, { side: sideName(ev.side), points: ev.points, score: ev.score });
        cls = "score";
        if (live) {
          const label =
            reason === "count" ? t("float_domino", { points: ev.points }) : reason === "bonus" ? t("float_bonus", { points: ev.points }) : t("float_points", { points: ev.points });
          floatNear(ev.side, label, reason !== "ends");
          sounds.play(reason === "count" ? "domino" : "score");
        }
        break;
      }
      case "bonus":
        text = t("log_bonus", { name: name(ev.seat), points: ev.points });
        cls = "score";
        break;
      case "dumbbell":
        text = t("log_dumbbell", { name: name(ev.seat), in_turn: ev.in_turn, in_game: ev.in_game });
        if (live) {
          pendingDumbbells.push(ev.seat);
          announce(text);
        }
        break;
      case "clock_halved":
        text = t("log_clock_halved", { name: name(ev.seat), n: ev.seconds });
        break;
      case "hand_board":
        // The finished hand's board: kept on the felt while its summary is open.
        if (!logOnly) state.handBoard = ev.board || null;
        return;
      case "hand_over":
        text = handOverTitle(ev);
        cls = "hand";
        if (!logOnly) {
          state.summaryBoard = state.handBoard || null;
          state.handBoard = null;
          showSummary(ev);
        }
        break;
      case "away":
        text = t(ev.on_purpose ? "log_away_closed" : "log_away_lost", { name: name(ev.seat) });
        break;
      case "back":
        text = t("log_back", { name: name(ev.seat) });
        break;
      case "rematch":
        text = t(ev.want ? "log_rematch" : "log_rematch_off", { name: name(ev.seat) });
        if (live && ev.want && ev.seat !== mySeat()) announce(text);
        break;
      case "game_aborted":
        // A seat ended it before the first play; without one, it was called off (tournaments).
        text = ev.seat === undefined || ev.seat === null ? t("log_called_off") : t("log_aborted", { name: name(ev.seat) });
        cls = "hand";
        break;
      case "game_voided":
        text = t("log_voided");
        cls = "hand";
        break;
      case "table_closed":
        text = t(ev.reason === "idle" ? "log_closed_idle" : "log_closed_by_staff");
        cls = "hand";
        break;
      case "game_over":
        text = t("log_game_over", { side: sideName(ev.winner) });
        cls = "hand";
        if (!logOnly) showGameOver(ev);
        break;
      default:
        break;
    }
    if (text && !noLog) addLog(text, cls);
    if (live) reader.event(ev, text);
  }

  /** The move log drawn again from the server's recent batches ({seq, events}), from the start
   *  of the table's current game: what a page opened or reloaded mid-game had not seen. */
  function drawLog(batches) {
    if (!ui.log || !Array.isArray(batches)) return;
    let from = 0;
    batches.forEach((batch, i) => {
      if ((batch.events || []).some((ev) => ev.type === "game_started")) from = i;
    });
    ui.log.replaceChildren();
    for (const batch of batches.slice(from)) {
      for (const ev of batch.events || []) onEvent(ev, { logOnly: true });
    }
  }

  function addLog(text, cls) {
    if (!ui.log) return;
    ui.log.append(el("li", { class: cls || null }, text));
    while (ui.log.children.length > MAX_LOG) ui.log.firstElementChild.remove();
    ui.log.scrollTop = ui.log.scrollHeight;
  }

  function announce(text) {
    if (reader.on) {
      reader.announce(text);
      return;
    }
    if (!ui.announcer) return;
    ui.announcer.textContent = "";
    // A fresh node so screen readers read a repeated message again.
    setTimeout(() => {
      ui.announcer.textContent = text;
    }, 30);
  }

  let hintTimer = null;
  function hint(text) {
    if (ui.handHint) {
      ui.handHint.textContent = text;
      ui.handHint.dataset.hold = "1";
      clearTimeout(hintTimer);
      hintTimer = setTimeout(() => {
        delete ui.handHint.dataset.hold;
        render();
      }, 3500);
    }
    announce(text);
  }

  /** "+15" (or "Domino! +20") floating up from the seat of the side that scored. */
  function floatNear(side, label, big) {
    const seats = seatsOf(side);
    floatOnSeat(seats.includes(lastActor) ? lastActor : seats[0], label, big ? "big" : "");
  }

  /** A label that rises from a seat's panel (or the board) and fades: "+15", "+1 dumbbell". */
  function floatOnSeat(seat, label, extraClass) {
    if (!ui.felt) return null;
    const target = ui.felt.querySelector(`.seat[data-seat="${seat}"]`) || ui.boardWrap;
    if (!target) return null;
    const fr = ui.felt.getBoundingClientRect();
    const r = target.getBoundingClientRect();
    const node = el("div", { class: `float-score${extraClass ? ` ${extraClass}` : ""}`, "aria-hidden": "true" }, label);
    node.style.left = `${r.left - fr.left + r.width / 2}px`;
    node.style.top = `${r.top - fr.top + r.height / 2}px`;
    ui.felt.append(node);
    setTimeout(() => node.remove(), 1900);
    return target;
  }

  // ======================================================================== summaries

  function handOverTitle(ev) {
    switch (ev.result) {
      case "domino":
        return t("summary_domino", { name: seatName(ev.seat) });
      case "locked":
        return t("summary_locked");
      case "blocked":
        return ev.seat === null || ev.seat === undefined ? t("summary_blocked_even") : t("summary_blocked", { name: seatName(ev.seat) });
      case "redeal":
        return t("summary_redeal");
      case "forfeit":
        return t("summary_forfeit");
      case "abandoned":
        return t("summary_abandoned");
      default:
        return t("summary_hand_over");
    }
  }

  function bonesRow(bones, size = 15) {
    const row = el("span", { class: "bones" });
    if (!bones || !bones.length) {
      row.append(el("span", {}, t("summary_no_bones")));
      return row;
    }
    for (const b of bones) row.append(renderBone(b, { size, vertical: true, title: canonicalBone(b) }));
    return row;
  }

  /** Whose pips make the count at the end of this hand, and why, one word per seat. */
  function countedRole(ev, seat) {
    if (ev.seat === null || ev.seat === undefined) return null;
    if (ev.result !== "domino" && ev.result !== "blocked") return null;
    if (seat === ev.seat) return ev.result === "domino" ? "summary_role_domino" : "summary_role_fewest";
    if (partners() && sideOf(seat) === sideOf(ev.seat)) return "summary_role_partner";
    return "summary_role_counted";
  }

  function showSummary(ev) {
    const box = ui.summary;
    if (!box) return;
    const hands = Array.isArray(ev.hands) ? ev.hands : [];
    const heading = el("h2", { id: "summary-title" }, handOverTitle(ev));
    const roles = hands.map((_, seat) => countedRole(ev, seat));
    const withRoles = roles.some(Boolean);
    const rows = hands.map((bones, seat) =>
      el(
        "tr",
        { class: [seat === ev.seat ? "winner" : "", roles[seat] === "summary_role_counted" ? "counted" : ""].join(" ").trim() || null, "data-seat": String(seat) },
        el("th", { scope: "row" }, seatName(seat), seat === mySeat() ? el("span", { class: "visually-hidden" }, ` ${t("you_marker")}`) : null),
        el("td", {}, bonesRow(bones)),
        el("td", { class: "num", title: t("summary_pips_help") }, String(pipsOf(bones))),
        withRoles ? el("td", { class: "role" }, roles[seat] ? t(roles[seat]) : "") : null,
      ),
    );
    const table = el(
      "table",
      {},
      el("caption", { class: "visually-hidden" }, t("summary_hands_caption")),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", { scope: "col" }, t("summary_player")),
          el("th", { scope: "col" }, t("summary_bones_left")),
          el("th", { scope: "col", class: "num", title: t("summary_pips_help") }, t("summary_pips")),
          withRoles ? el("th", { scope: "col" }, t("summary_counts")) : null,
        ),
      ),
      el("tbody", {}, rows),
    );
    const lines = [];
    const house = !!state.game?.rules?.doubles_bonus;
    const by = house ? settings().count_by || 5 : state.game?.rules?.unit || 5;
    if (ev.result === "domino" || ev.result === "blocked") {
      if (ev.seat !== null && ev.seat !== undefined) {
        // What was counted: every other hand (not a partner's), then rounded once.
        if (ev.result === "blocked") {
          lines.push(el("p", { class: "count-why" }, t("summary_why_blocked", { pips: ev.pips, by, rounded: ev.rounded })));
        } else if (house && roles.filter((r) => r === "summary_role_counted").length > 1) {
          lines.push(el("p", { class: "count-why" }, t("summary_why_count", { pips: ev.pips, by, rounded: ev.rounded })));
          if (partners()) {
            const partner = seatsOf(sideOf(ev.seat)).find((seat) => seat !== ev.seat);
            lines.push(el("p", { class: "count-why" }, t("summary_why_partner", { name: seatName(partner) })));
          }
        } else {
          lines.push(el("p", { class: "count-why" }, t("summary_why_h2h", { pips: ev.pips, by, rounded: ev.rounded })));
        }
        let result;
        if (ev.points > 0) result = t("summary_points", { side: sideName(ev.side), points: ev.points });
        else if (!ev.rounded) result = t("summary_nothing_to_count");
        else result = t("summary_no_points_get_on", { side: sideName(ev.side), n: settings().get_on ?? 0 });
        lines.push(el("p", { class: "count-line" }, result));
      } else {
        lines.push(el("p", {}, t("summary_even", { pips: ev.pips })));
      }
    } else if (ev.result === "locked") {
      lines.push(el("p", {}, t("summary_locked_help")));
    }
    const close = el("button", { type: "button", class: "btn", "data-summary-close": "", text: t("summary_continue"), onclick: hideSummary });
    box.replaceChildren(el("div", { class: "summary-body" }, heading, el("div", { class: "table-scroll" }, table), ...lines), el("div", { class: "actions" }, close));
    box.hidden = false;
    box.setAttribute("aria-labelledby", "summary-title");
    // Focus into the summary (its Continue), unless the player is typing (chat); Continue gives
    // it back to the hand. Where it was is kept: a summary the game's result replaces at once
    // was never read, and the result gives focus back there (showGameOver).
    if (!document.activeElement?.closest?.("input, textarea, select, dialog")) {
      state.summaryFrom = document.activeElement;
      close.focus();
    }
    state.summaryShownAt = Date.now();
    clearTimeout(state.summaryTimer); // it stays until read: Continue, Escape, or the next hand under way
  }

  /** The next hand is under way: let the summary go once it has been read for a moment. */
  function summaryMayGo() {
    if (!ui.summary || ui.summary.hidden) return;
    const shown = Date.now() - (state.summaryShownAt || 0);
    clearTimeout(state.summaryTimer);
    state.summaryTimer = setTimeout(hideSummary, Math.max(0, 8000 - shown));
  }

  /** `giveBack`: focus (if the summary has it) goes back where it was before the summary took
   * it, rather than to the hand. (Called as a click handler too: then `options` is the event.) */
  function hideSummary(options) {
    if (!ui.summary || ui.summary.hidden) return;
    const hadFocus = ui.summary.contains(document.activeElement);
    const from = state.summaryFrom;
    state.summaryFrom = null;
    ui.summary.hidden = true;
    clearTimeout(state.summaryTimer);
    const keptBoard = state.summaryBoard;
    state.summaryBoard = null;
    summarySeen();
    if (keptBoard) render();
    if (!hadFocus) return;
    if (options?.giveBack === true && from?.isConnected && from !== document.body) from.focus();
    else focusHand();
  }

  /** A summary open over the felt: its finished hand's board stays drawn under it. */
  function summaryOpen() {
    return !!(ui.summary && !ui.summary.hidden);
  }

  /** The next hand's clock waits until every player has seen the summary (docs/protocol.md): say
   * this player has, once per hand. Also when no summary is shown (a page opened meanwhile). */
  function summarySeen() {
    const game = state.game;
    if (mySeat() === null || !game || game.phase === "game_over" || clockWait() <= 0) return;
    if (summaryOpen() || state.summarySeenFor === game.deal) return;
    if (send({ type: "summary_seen", hand: game.deal })) state.summarySeenFor = game.deal;
  }

  function workoutText(w) {
    if (!w) return "";
    if (w.kind === "reps") return tn("workout_reps", w.amount);
    if (w.kind === "timed") return tn("workout_timed", w.amount);
    const miles = w.amount / 10;
    return tn("workout_run", miles, { n: miles.toLocaleString(document.documentElement.lang || undefined) });
  }

  /** An amount of play money in words: "30 Dollars", "2 books", "1 × Soup". */
  function moneyText(unitKey, amount, units) {
    if (unitKey === "dollars") return tn("money_dollars", amount);
    if (unitKey === "books") return tn("money_books", amount);
    const good = units?.[unitKey] || {};
    const lang = document.documentElement.lang || "en";
    const name = (lang.startsWith("es") && good.name_es) || good.name || "?";
    return t("money_goods", { n: amount, name });
  }

  /** What a seat won or paid at a staked table once the game was settled (null elsewhere). */
  function netText(seat) {
    const settled = state.table?.settlement;
    const net = settled?.net?.[seat];
    if (!net) return null;
    const won = [];
    const paid = [];
    for (const [unit, amount] of Object.entries(net)) {
      if (amount > 0) won.push(moneyText(unit, amount, settled.units));
      else if (amount < 0) paid.push(moneyText(unit, -amount, settled.units));
    }
    const parts = [];
    if (won.length) parts.push(t("net_won", { amount: won.join(", ") }));
    if (paid.length) parts.push(t("net_paid", { amount: paid.join(", ") }));
    return { text: parts.length ? parts.join("; ") : t("net_even"), sign: won.length && !paid.length ? "won" : paid.length && !won.length ? "paid" : "even" };
  }

  /** The game's result as a game_over event, from the game view (a page opened after the end). */
  function resultEvent(game) {
    const r = game?.game;
    if (!r) return null;
    return { type: "game_over", ...r, scores: game.scores };
  }

  function showGameOver(ev) {
    const d = ui.gameOverDialog;
    if (!d) return;
    const skunked = ev.skunked || [];
    const workouts = Array.isArray(ev.workouts) ? ev.workouts : [];
    const owesSomething = workouts.some(Boolean) || !!state.table?.settlement;
    const body = [];
    body.push(el("h2", { id: "game-over-title" }, t("game_over_title")));
    const winnerKey = seatsOf(ev.winner).length === 2 ? "game_over_winners" : "game_over_winner";
    body.push(el("p", { class: "winner" }, t(winnerKey, { side: sideName(ev.winner) })));
    if (ev.reason === "forfeit" && ev.forfeit !== null && ev.forfeit !== undefined) {
      body.push(el("p", {}, t("game_over_forfeit", { name: seatName(ev.forfeit) })));
    }
    if (ev.reason === "abandoned" && ev.forfeit !== null && ev.forfeit !== undefined) {
      body.push(el("p", {}, t("game_over_abandoned", { name: seatName(ev.forfeit) })));
    }
    const scores = Array.isArray(ev.scores) ? ev.scores : [];
    body.push(
      el(
        "ul",
        { class: "final-scores", "aria-label": t("scores_title") },
        scores.map((s, side) =>
          el(
            "li",
            { class: side === ev.winner ? "won" : null },
            t("game_over_score", { side: sideName(side), score: s }),
            skunked.includes(side) ? el("span", { class: "skunk", title: t("game_over_skunk_plain", { line: state.game?.rules?.skunk_under ?? "" }) }, ` — ${t("game_over_skunked")}`) : "",
          ),
        ),
      ),
    );
    if (skunked.length) {
      // "Owes double" only where something is owed: a stake or a workout.
      const key = owesSomething ? "game_over_skunk_help" : "game_over_skunk_plain";
      body.push(el("p", { class: "help" }, t(key, { line: state.game?.rules?.skunk_under ?? "" })));
    }

    // Each player: what they won or paid (staked tables) and the workout they owe (Gym).
    const seats = (state.table?.seats || []).filter((s) => s.player).map((s) => s.number);
    const nets = seats.map((seat) => netText(seat));
    const showNets = nets.some(Boolean);
    const showWorkouts = workouts.some(Boolean);
    if (showNets || showWorkouts) {
      const base = settings().workout;
      const rows = seats.map((seat, i) => {
        const w = workouts[seat];
        let workout = null;
        if (showWorkouts) {
          const dumbbells = state.game?.dumbbells?.[seat] ?? 0;
          const why =
            w && base
              ? t(skunked.includes(sideOf(seat)) ? "workout_why_skunked" : "workout_why", { base: workoutText(base), n: dumbbells, per: t(`per_dumbbell_${base.kind}`) })
              : "";
          workout = el("td", { "data-workout-seat": w ? String(seat) : null }, w ? workoutText(w) : t("nothing_owed"), why ? el("span", { class: "help" }, why) : null);
        }
        const net = nets[i];
        return el(
          "tr",
          { class: seat === mySeat() ? "mine" : null },
          el("th", { scope: "row" }, seatName(seat), seat === mySeat() ? el("span", { class: "visually-hidden" }, ` ${t("you_marker")}`) : null),
          showNets ? el("td", { class: `net ${net?.sign || ""}`.trim(), "data-net-seat": String(seat) }, net ? net.text : "") : null,
          workout,
        );
      });
      body.push(
        el(
          "div",
          { class: "table-scroll" },
          el(
            "table",
            { class: "result-table" },
            el("caption", {}, t("game_over_each")),
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                el("th", { scope: "col" }, t("summary_player")),
                showNets ? el("th", { scope: "col", title: t("net_help") }, t("net_title")) : null,
                showWorkouts ? el("th", { scope: "col", title: t("fact_workout_help", { per: base ? t(`per_dumbbell_${base.kind}`) : "" }) }, t("game_over_workouts")) : null,
              ),
            ),
            el("tbody", {}, rows),
          ),
        ),
      );
      if (showWorkouts && mySeat() !== null && workouts[mySeat()]) body.push(el("p", { class: "help" }, t("workout_on_profile")));
    }
    const ratings = ratingChanges();
    if (ratings) body.push(ratings);
    if (state.table?.game_url) {
      body.push(el("p", {}, el("a", { href: state.table.game_url, "data-game-link": "" }, t("game_over_history"))));
    }
    // Another game with the same people, at a table of one's own choosing: a challenge each.
    const rivals = mySeat() === null ? [] : (state.table?.seats || []).filter((x) => x.player && !x.player.house && x.number !== mySeat());
    if (rivals.length) {
      body.push(
        el(
          "p",
          { class: "challenge-links" },
          rivals.map((x) => el("a", { class: "btn btn-small btn-quiet", href: `/players/${encodeURIComponent(x.player.id)}/challenge/`, "data-challenge": String(x.player.id) }, t("challenge_player", { name: x.player.name }))),
        ),
      );
    }
    const mine = (state.table?.seats || []).find((x) => x.number === mySeat());
    d.replaceChildren(
      el("div", { class: "dialog-body" }, ...body),
      el(
        "div",
        { class: "actions" },
        // The Shark's review of a player's own play: in the footer, always in sight.
        mySeat() !== null && state.table?.game_url
          ? el("a", { class: "btn btn-quiet", href: `${state.table.game_url}#review`, "data-review-link": "" }, t("game_over_review"))
          : null,
        mySeat() !== null && !mine?.rematch && state.table?.status === "finished"
          ? el("button", {
              type: "button",
              class: "btn",
              "data-rematch": "",
              // Someone (the house, at once) already asked: this answers them.
              text: (state.table?.seats || []).some((x) => x.rematch && x.number !== mySeat()) ? t("rematch_accept") : t("rematch_offer"),
              onclick: () => {
                send({ type: "rematch", want: true });
                d.close();
              },
            })
          : null,
        el("button", { type: "button", class: "btn btn-quiet", "data-close": "", text: t("close"), onclick: () => d.close() }),
      ),
    );
    d.setAttribute("aria-labelledby", "game-over-title");
    // The last hand's summary goes unread: focus back where the player had it, so that the
    // dialog gives it back there when it closes (the browser returns it to what had it).
    hideSummary({ giveBack: true });
    if (!d.open) {
      if (typeof d.showModal === "function") d.showModal();
      else d.setAttribute("open", "");
    }
    d.querySelector(".actions button")?.focus(); // the first choice, rather than a link
  }

  // ======================================================================== drawing

  function render() {
    ui.felt?.classList.toggle("offline", !state.ws || state.ws.readyState !== 1);
    if (state.game) for (const note of document.querySelectorAll(".messages.toast")) note.remove();
    renderHead();
    renderSeats();
    renderScores();
    renderScoreStrip();
    renderStatus();
    renderHand();
    renderInvite();
    renderDoublesDialog();
    renderControls();
    layoutNow(); // the hand fitted, then the board drawn in the space left
    app.dispatchEvent(new CustomEvent("table:render")); // the coach's Hint (static/js/coach.js)
  }

  function renderHead() {
    const table = state.table;
    const game = state.game;
    if (ui.facts) {
      const s = settings();
      const facts = [];
      // The mode in the page's language (the engine's title is English).
      const modeKey = table?.mode || s.mode;
      const mode = modeKey && strings[`mode_${modeKey}`] ? t(`mode_${modeKey}`) : game?.rules?.title;
      if (mode) facts.push(el("li", { class: "fact-mode", title: t("fact_mode_help") }, mode));
      if (s.target) facts.push(el("li", { title: t("fact_target_help") }, t("fact_target", { n: s.target })));
      if (s.players) facts.push(el("li", {}, s.partners ? t("fact_partners") : tn("fact_players", s.players)));
      if (s.set) facts.push(el("li", {}, t(`set_${s.set.replace("-", "_")}`)));
      if (game && game.deal) facts.push(el("li", { title: t("fact_hand_help") }, t("fact_hand", { n: game.deal })));
      if (game && s.deal && game.rules && game.rules.yard > 0) {
        facts.push(el("li", { title: t("fact_yard_help") }, t("fact_yard", { n: game.yard ?? 0 })));
      }
      if (s.clock) {
        const mode = table?.mode || s.mode;
        const clockName = mode === "inmate_gym" ? t("clock_hard_time") : mode === "citizen_gym" ? t("clock_community_service") : t("clock_custom");
        facts.push(el("li", { title: t("fact_clock_help") }, t("fact_clock", { name: clockName, seconds: s.clock })));
      }
      if (s.workout && s.workout.kind) {
        const per = t(`per_dumbbell_${s.workout.kind}`);
        facts.push(el("li", { class: "fact-workout", title: t("fact_workout_help", { per }) }, t("fact_workout", { workout: workoutText(s.workout), per })));
      }
      if (state.watchers > 0) {
        facts.push(el("li", { class: "fact-watchers", title: t("watchers_help") }, tn("watchers", state.watchers)));
      }
      if (!game && table?.status) {
        const key = `status_${table.status}`;
        if (strings[key]) facts.push(el("li", {}, t(key)));
      }
      ui.facts.replaceChildren(...facts);
    }
    if (ui.commitment) {
      const c = table?.commitment;
      if (c && c.sha256 && game?.phase !== "game_over" && table?.status !== "finished") {
        ui.commitment.hidden = false;
        const code = ui.commitment.querySelector("code.short");
        const full = ui.commitment.querySelector("code.full");
        if (code) code.textContent = `${String(c.sha256).slice(0, 12)}…`;
        if (full) full.textContent = c.sha256;
        const summary = ui.commitment.querySelector("summary");
        if (summary) summary.title = t("commitment_help");
      } else {
        ui.commitment.hidden = true;
      }
    }
  }

  const POSITIONS = {
    2: ["bottom", "top"],
    3: ["bottom", "left", "right"],
    4: ["bottom", "left", "top", "right"],
  };

  const houseChoice = {};

  /** A tiny picture for a number on a seat: a face-down bone, or a dumbbell. */
  function boneIcon() {
    return renderBone("0-0", { size: 9, vertical: true, faceDown: true });
  }

  function dumbbellIcon() {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 12");
    svg.setAttribute("width", "18");
    svg.setAttribute("height", "9");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    svg.setAttribute("class", "dumbbell-icon");
    svg.innerHTML =
      '<rect x="1" y="1" width="4" height="10" rx="1" fill="currentColor"/><rect x="19" y="1" width="4" height="10" rx="1" fill="currentColor"/>' +
      '<rect x="5" y="3" width="2.5" height="6" fill="currentColor"/><rect x="16.5" y="3" width="2.5" height="6" fill="currentColor"/>' +
      '<rect x="7.5" y="5" width="9" height="2" fill="currentColor"/>';
    return svg;
  }

  /** A player's rating in the table's pool: "1512", or "1500?" while provisional. */
  function ratingTag(r) {
    const pool = t(`pool_${state.table?.rating?.pool || ""}`);
    const shown = `${r.rating}${r.provisional ? "?" : ""}`;
    const words = r.provisional ? t("rating_provisional", { rating: r.rating, pool }) : t("rating_tag", { rating: r.rating, pool });
    return el("span", { class: "tag rating", "data-rating": shown, title: words }, el("span", { "aria-hidden": "true" }, shown), el("span", { class: "visually-hidden" }, words));
  }

  /** What the game did to the ratings, for the game-over dialog (picture.rating_changes). */
  function ratingChanges() {
    const rc = state.table?.rating_changes;
    if (!rc) return null;
    const pool = t(`pool_${rc.pool}`);
    // Not rated: one line saying why, no heading. Rated: "Ratings", and the pool named as its
    // leaderboard names it, a link there.
    if (!rc.rated) return el("p", { class: "help rating-changes", "data-rating-changes": "" }, t(`rating_why_${rc.why_not || "no_result"}`));
    const out = el(
      "div",
      { class: "rating-changes", "data-rating-changes": "" },
      el("h3", { title: t("rating_help", { pool }) }, t("rating_title")),
      el("p", { class: "help" }, el("a", { href: `/leaderboards/${encodeURIComponent(rc.pool)}/` }, t("rating_leaderboard", { pool }))),
    );
    const items = (state.table?.seats || [])
      .filter((s) => s.player)
      .map((s) => {
        const c = rc.seats?.[s.number];
        if (!c) return el("li", {}, t("rating_unchanged", { name: seatName(s.number) }));
        const delta = c.delta > 0 ? `+${c.delta}` : c.delta < 0 ? `−${-c.delta}` : "±0";
        const cls = c.delta > 0 ? "up" : c.delta < 0 ? "down" : null;
        return el(
          "li",
          { class: [cls, s.number === mySeat() ? "mine" : null].filter(Boolean).join(" ") || null, "data-rating-seat": String(s.number), "data-delta": String(c.delta) },
          t("rating_change", { name: seatName(s.number), after: `${c.after}${c.provisional ? "?" : ""}`, delta }),
        );
      });
    out.append(el("ul", {}, items));
    return out;
  }

  function seatPanel(seatInfo, pos) {
    const table = state.table;
    const game = state.game;
    const n = seatInfo.number;
    const me = mySeat();
    const pregame = !game;
    const player = seatInfo.player;
    const isMe = me !== null && n === me;
    const turn = game && game.phase !== "game_over" && game.to_act === n;
    const partner = !!player && isPartner(n);
    const cls = ["seat"];
    if (!player) cls.push("empty");
    if (isMe) cls.push("me");
    if (turn) cls.push("turn");
    if (partner) cls.push("partner");
    const name = player ? playerLabel(player) : t("seat_empty");
    const online = seatInfo.online === undefined ? null : !!seatInfo.online;
    const head = el(
      "h3",
      {},
      player && online !== null
        ? el("span", { class: `presence${online ? " online" : ""}`, title: online ? t("online") : t("away"), role: "img", "aria-label": online ? t("online") : t("away") })
        : null,
      el("span", { class: "name", title: name }, name),
      botTag(player),
      isMe ? el("span", { class: "visually-hidden" }, ` ${t("you_marker")}`) : null,
      turn ? el("span", { class: "visually-hidden" }, ` ${t("seat_turn")}`) : null,
    );
    const line = el("div", { class: "seat-line" });
    if (game && Array.isArray(game.hand_sizes) && player) {
      const count = game.hand_sizes[n] ?? 0;
      line.append(el("span", { class: "count", title: tn("bones_in_hand", count) }, boneIcon(), el("span", { "aria-hidden": "true" }, String(count)), el("span", { class: "visually-hidden" }, tn("bones_in_hand", count))));
    }
    if (partner) line.append(el("span", { class: "tag partner", title: t("partner_help") }, t("partner_tag")));
    if (player?.rating) line.append(ratingTag(player.rating));
    if (player?.house) {
      const level = t(`level_${player.house}`);
      line.append(el("span", { class: "tag house", title: `${t("house_tag", { level })}. ${t("house_help")}` }, t("house_short")));
    }
    if (pregame && player) {
      line.append(el("span", { class: `tag${seatInfo.ready ? " ready" : ""}` }, seatInfo.ready ? t("ready_tag") : t("not_ready_tag")));
    }
    if (game && game.rock === n && game.phase !== "game_over") line.append(el("span", { class: "tag rock", title: t("rock_help") }, t("rock")));
    if (game && Array.isArray(game.dumbbells) && (game.settings?.clock || game.dumbbells[n] > 0)) {
      const inTurn = turn ? game.turn_dumbbells || 0 : 0;
      const total = game.dumbbells[n] ?? 0;
      const words = inTurn ? t("dumbbells_turn_game", { turn: inTurn, game: total }) : t("dumbbells_n", { n: total });
      line.append(
        el(
          "span",
          { class: `tag dumbbells${inTurn ? " in-turn" : ""}`, "data-dumbbells": String(total), title: `${words}. ${t("dumbbells_help")}` },
          dumbbellIcon(),
          inTurn ? words : el("span", {}, el("span", { "aria-hidden": "true" }, String(total)), el("span", { class: "visually-hidden" }, words)),
        ),
      );
    }
    if (player && seatInfo.grace_until && game && game.phase !== "game_over") {
      const tag = el("span", { class: "tag away", "data-grace": String(seatInfo.grace_until), title: t("away_help") });
      paintGrace(tag);
      line.append(tag);
    }
    if (pregame && table?.host && player && table.host === player.id) {
      line.append(el("span", { class: "tag", title: t("host_help") }, t("host")));
    }
    const actions = el("div", { class: "seat-actions" });
    if (pregame && !state.fatal) {
      if (!player && me === null && state.ws) {
        actions.append(
          el("button", {
            type: "button",
            class: "btn btn-small",
            "aria-label": t("sit_here_seat", { n: n + 1 }),
            text: t("sit_here"),
            onclick: () => send({ type: "sit", seat: n }),
          }),
        );
      }
      if (!player && table?.you?.host && state.ws) {
        // the host may put a house player (a bot) in an empty seat, choosing its level
        const pick = el(
          "select",
          { class: "house-level", "aria-label": t("house_level_for", { n: n + 1 }) },
          ...["rookie", "regular", "shark"].map((level) => el("option", { value: level, text: t(`level_${level}`) })),
        );
        pick.value = houseChoice[n] || "regular";
        on(pick, "change", (ev) => {
          houseChoice[n] = ev.currentTarget.value; // kept across re-renders of the seats
        });
        actions.append(
          pick,
          el("button", {
            type: "button",
            class: "btn btn-small btn-quiet",
            "aria-label": t("add_house_seat", { n: n + 1 }),
            text: t("add_house"),
            onclick: () => send({ type: "house_sit", seat: n, level: houseChoice[n] || "regular" }),
          }),
        );
      }
      if (player?.house && table?.you?.host) {
        actions.append(
          el("button", {
            type: "button",
            class: "btn btn-small btn-danger",
            "aria-label": t("remove_player", { name: player.name }),
            text: t("remove"),
            onclick: () => send({ type: "house_remove", seat: n }),
          }),
        );
      }
      if (player && !player.house && !isMe && table?.you?.host && !seatInfo.ready) {
        actions.append(
          el("button", {
            type: "button",
            class: "btn btn-small btn-danger",
            "aria-label": t("remove_player", { name: player.name }),
            text: t("remove"),
            onclick: () => send({ type: "remove", seat: n }),
          }),
        );
      }
      if (isMe) {
        actions.append(
          el("button", {
            type: "button",
            class: "btn btn-small",
            "aria-pressed": seatInfo.ready ? "true" : "false",
            text: seatInfo.ready ? t("not_ready") : t("ready"),
            onclick: () => {
              sounds.unlock();
              send({ type: "ready", ready: !seatInfo.ready });
            },
          }),
          el("button", { type: "button", class: "btn btn-small btn-quiet", text: t("leave_seat"), onclick: () => send({ type: "stand" }) }),
        );
      }
    }
    const label = player ? t("seat_label", { n: n + 1, name }) : t("seat_label_empty", { n: n + 1 });
    return el("section", { class: cls.join(" "), "data-seat": String(n), "data-pos": pos, "aria-label": label }, head, line, clockBar(n), actions.childNodes.length ? actions : null);
  }

  function renderSeats() {
    const table = state.table;
    if (!table || !Array.isArray(table.seats) || !ui.others || !ui.meBar) return;
    const seats = [...table.seats].sort((a, b) => a.number - b.number);
    const n = seats.length;
    const me = mySeat();
    const base = me ?? 0;
    const positions = POSITIONS[n] || seats.map((_, i) => (i === 0 ? "bottom" : "top"));
    const others = [];
    let bottom = null;
    for (const s of seats) {
      const rel = (((s.number - base) % n) + n) % n;
      const pos = positions[rel] || "top";
      const panel = seatPanel(s, pos);
      if (pos === "bottom") bottom = panel;
      else others.push({ rel, panel });
    }
    others.sort((a, b) => a.rel - b.rel);
    ui.felt?.setAttribute("data-players", String(n));
    patchChildren(ui.others, others.map((o) => o.panel));
    const bar = [];
    if (bottom) bar.push(bottom);
    if (me === null && table) bar.push(el("p", { class: "watching" }, t("watching")));
    patchChildren(ui.meBar, bar);
  }

  function renderScores() {
    const pad = ui.scorePad;
    if (!pad) return;
    const game = state.game;
    const s = settings();
    const sides = sideCount();
    if (!sides) {
      pad.replaceChildren();
      return;
    }
    const scores = game?.scores || new Array(sides).fill(0);
    const onBoard = game?.on_board || new Array(sides).fill(false);
    const getOn = s.get_on ?? 0;
    const target = s.target || 0;
    const me = mySeat();
    const rows = [];
    for (let side = 0; side < sides; side++) {
      const turn = game && game.to_act !== null && game.to_act !== undefined && sideOf(game.to_act) === side && game.phase !== "game_over";
      const mine = me !== null && sideOf(me) === side;
      let mark = null;
      if (getOn > 0 && game) {
        mark = onBoard[side]
          ? el("span", { class: "on-board", title: t("on_board_help", { n: getOn }) }, el("span", { "aria-hidden": "true" }, "✓ "), t("on_board"))
          : el("span", { class: "on-board off", title: t("not_on_board_help", { n: getOn }) }, t("not_on_board"));
      }
      const score = scores[side] ?? 0;
      const pct = target ? Math.min(100, Math.round((100 * score) / target)) : 0;
      const fill = el("span");
      fill.style.width = `${pct}%`; // CSSOM, which the Content-Security-Policy allows (a style="" would not be)
      const bar = el("div", { class: "bar", "aria-hidden": "true" }, fill);
      let dumb = null;
      if (game && s.clock && Array.isArray(game.dumbbells)) {
        const d = seatsOf(side).reduce((sum, seat) => sum + (game.dumbbells[seat] || 0), 0);
        dumb = el("div", { class: "dumbbells", title: t("dumbbells_help") }, t("dumbbells_n", { n: d }));
      }
      rows.push(
        el(
          "tr",
          { class: [mine ? "mine" : "", turn ? "turn" : ""].join(" ").trim() || null, "data-side": String(side) },
          el("th", { scope: "row" }, sideName(side), mine ? el("span", { class: "visually-hidden" }, ` ${t("you_marker")}`) : null, bar, dumb),
          el("td", {}, mark),
          el("td", { class: "num", title: t("score_help", { target }) }, String(score)),
        ),
      );
    }
    const table = el(
      "table",
      {},
      el("caption", { class: "visually-hidden" }, t("scores_caption")),
      el("thead", { class: "visually-hidden" }, el("tr", {}, el("th", { scope: "col" }, t("summary_player")), el("th", { scope: "col" }, t("on_board")), el("th", { scope: "col" }, t("score")))),
      el("tbody", {}, rows),
    );
    const foot = [];
    if (target) foot.push(el("p", { class: "target", title: t("fact_target_help") }, t("target_line", { n: target })));
    const skunk = state.game?.rules?.skunk_under;
    if (skunk) foot.push(el("p", { class: "target", title: t("skunk_help", { n: skunk }) }, t("skunk_line", { n: skunk })));
    if (getOn > 0) foot.push(el("p", { class: "target" }, t("get_on_line", { n: getOn })));
    pad.replaceChildren(table, ...foot);
  }

  /** The scores at a glance, in the bar: one chip a side, each explained in its title. */
  function renderScoreStrip() {
    const strip = ui.scoreStrip;
    if (!strip) return;
    const game = state.game;
    const sides = game ? sideCount() : 0;
    if (!sides) {
      strip.replaceChildren();
      strip.hidden = true;
      return;
    }
    strip.hidden = false;
    const me = mySeat();
    const target = settings().target || 0;
    const chips = [];
    for (let side = 0; side < sides; side++) {
      const mine = me !== null && sideOf(me) === side;
      const turn = game.phase !== "game_over" && game.to_act !== null && game.to_act !== undefined && sideOf(game.to_act) === side;
      let who;
      if (mine) who = partners() ? t("score_us") : t("score_you");
      else if (partners() && me !== null) who = t("score_them");
      else who = seatsOf(side).map((seat) => playerShort(seatInfo(seat)?.player) || t("seat_n", { n: seat + 1 })).join(" & ");
      const score = game.scores?.[side] ?? 0;
      const help = t("score_chip_help", { side: sideName(side), score, target });
      chips.push(
        el(
          "li",
          { class: ["score-chip", mine ? "mine" : "", turn ? "turn" : ""].join(" ").trim(), "data-side": String(side), title: help },
          el("span", { class: "who", "aria-hidden": "true" }, who),
          el("span", { class: "pts", "aria-hidden": "true" }, String(score)),
          el("span", { class: "visually-hidden" }, help),
        ),
      );
    }
    strip.replaceChildren(...chips);
  }

  function renderStatus() {
    const node = ui.status;
    if (!node) return;
    const game = state.game;
    const table = state.table;
    const me = mySeat();
    let text = "";
    let cls = "";
    if (state.fatal) {
      text = "";
    } else if (!table) {
      text = t("connecting");
    } else if (!game) {
      const seats = table.seats || [];
      const filled = seats.filter((s) => s.player).length;
      if (filled < seats.length) text = t("status_waiting_players");
      else if (seats.some((s) => !s.ready)) text = t("status_waiting_ready");
      else text = t("status_dealing");
      if (me !== null && !seats.find((s) => s.number === me)?.ready) {
        // A table Play now made: the seat is lost if Ready is not pressed in time.
        const left = readyLeft();
        text += ` ${left > 0 ? t("status_ready_within", { n: Math.ceil(left / 1000) }) : t("status_press_ready")}`;
        if (left > 0) {
          clearTimeout(state.readyTimer);
          state.readyTimer = setTimeout(renderStatus, (left % 1000) + 20);
        }
      }
    } else if (game.phase === "game_over") {
      text = t("status_game_over");
    } else if (game.phase === "awaiting_deal") {
      text = t("status_washing");
    } else if (summaryOpen() && state.summaryBoard) {
      text = t("status_summary");
    } else if (game.to_act !== null && game.to_act !== undefined) {
      const mine = me !== null && game.to_act === me;
      if (mine) {
        cls = "mine";
        const acts = legal();
        if (Date.now() < state.passingUntil || game.forced_pass) {
          text = t("status_passing");
          cls = "passing";
        } else if (game.phase === "choosing_doubles") text = t("status_choose_doubles");
        else if (acts.length && acts.every((a) => a.type === "draw")) text = t("status_draw");
        else if (!game.board?.lead) text = t("status_your_lead");
        else text = t("status_your_turn");
      } else {
        text = game.phase === "choosing_doubles" ? t("status_other_doubles", { name: seatName(game.to_act) }) : t("status_their_turn", { name: seatName(game.to_act) });
      }
    }
    if (text && game?.phase === "playing" && clockWait() > 0 && !(summaryOpen() && state.summaryBoard)) {
      text += ` ${t("status_clock_waits")}`;
      setTimeout(renderStatus, clockWait() + 50); // the sentence goes once the clock runs
    }
    if (me !== null && game && game.to_act !== me && Date.now() < state.passingUntil) {
      text = t("status_passing");
      cls = "passing";
    }
    node.textContent = text;
    node.className = `turn-status ${cls}`.trim();
    // Announce turn changes once each.
    const turnKey = game && game.to_act !== undefined ? `${game.deal}:${game.to_act}:${game.phase}` : null;
    if (turnKey && turnKey !== state.lastTurnKey) {
      state.lastTurnKey = turnKey;
      // In the screen-reader mode the reader's own line says whose turn it is.
      if (me !== null && game.to_act === me && game.phase !== "game_over") {
        if (!reader.on) announce(t("announce_your_turn"));
        sounds.play("turn");
      } else if (game.to_act !== null && game.to_act !== undefined && game.phase === "playing" && !reader.on) {
        announce(t("status_their_turn", { name: seatName(game.to_act) }));
      }
    }
  }

  function renderBoardNow() {
    if (!ui.board) return;
    const game = state.game;
    const lit = state.selected ? playsFor(state.selected).filter(Boolean) : state.drag ? playsFor(state.drag.bone).filter(Boolean) : [];
    const kept = summaryOpen() ? state.summaryBoard : null;
    const board = kept || game?.board || null;
    const last = !kept && game?.last_play && game.board?.lead ? game.last_play.bone : null;
    ui.boardWrap?.classList.toggle("empty", !board?.lead);
    const active = document.activeElement;
    const focusedEnd = active && ui.board.contains(active) ? active.getAttribute("data-end") : null;
    const hint = state.hint && game && state.hint.version === game.version && state.hint.end ? [state.hint.end] : [];
    renderBoard(ui.board, board, {
      lastBone: last,
      litEnds: lit,
      hintEnds: hint,
      onEnd: (end) => onEndActivated(end),
      t: (key, params) => (strings[key] !== undefined ? t(key, params) : null),
      unit: game?.rules?.unit || 5,
    });
    if (focusedEnd) {
      // The board was drawn anew: keep the keyboard where it was, or take it back to the hand.
      const again = ui.board.querySelector(`.end-target[data-end="${focusedEnd}"]`);
      if (again && (state.selected || !state.pending)) again.focus();
      else focusHand();
    }
  }

  function focusHand() {
    ui.hand?.querySelector('.hand-bone[tabindex="0"]')?.focus();
  }

  function renderHand() {
    const game = state.game;
    const me = mySeat();
    if (!ui.rack || !ui.hand) return;
    const watching = me === null || !game || !Array.isArray(game.hand);
    const focusedBone = ui.hand.contains(document.activeElement) ? document.activeElement.dataset.bone : null;
    ui.rack.hidden = me === null || !game;
    const acts = legal();
    const pending = !!state.pending;
    ui.hand.classList.toggle("pending", pending);
    ui.hand.setAttribute("aria-busy", pending ? "true" : "false");
    const buttons = [];
    if (!watching) {
      game.hand.forEach((bone, i) => {
        const key = canonicalBone(bone);
        const ends = playsFor(bone);
        const playable = ends.length > 0 && !pending;
        const selected = state.selected === key;
        const hinted = !!state.hint && state.hint.version === game.version && state.hint.bone === key;
        const label = playable ? t("hand_bone_playable", { bone: key }) : t("hand_bone", { bone: key });
        const btn = el(
          "button",
          {
            type: "button",
            class: `hand-bone ${playable ? "playable" : "unplayable"}${hinted ? " hinted" : ""}`,
            "data-bone": key,
            "data-index": String(i),
            "aria-label": label,
            "aria-pressed": selected ? "true" : "false",
            "aria-disabled": playable ? null : "true",
            tabindex: "-1",
          },
          renderBone(bone, { size: 36, vertical: true }), // drawn at --bone (fitHand)
        );
        on(btn, "click", (ev) => {
          if (state.suppressClick) {
            state.suppressClick = false;
            return;
          }
          state.handFocus = i;
          sounds.unlock();
          chooseBone(key, ev.detail === 0);
        });
        on(btn, "pointerdown", (ev) => startDrag(ev, ev.currentTarget, key));
        buttons.push(btn);
      });
    }
    if (state.handFocus >= buttons.length) state.handFocus = Math.max(0, buttons.length - 1);
    const selIndex = buttons.findIndex((b) => b.dataset.bone === state.selected);
    const focusIndex = focusedBone ? buttons.findIndex((b) => b.dataset.bone === focusedBone) : -1;
    const roving = focusIndex >= 0 ? focusIndex : selIndex >= 0 ? selIndex : state.handFocus;
    if (buttons[roving]) buttons[roving].tabIndex = 0;
    const drawn = patchChildren(
      ui.hand,
      buttons.length ? buttons : [el("p", { class: "hand-empty" }, watching ? t("hand_hidden") : t("hand_empty"))],
    );
    if (focusIndex >= 0 && buttons[focusIndex]) drawn[focusIndex].focus();
    else if (focusedBone && buttons[roving]) drawn[roving].focus(); // the focused bone was played

    // The heading's hint.
    if (ui.handHint && !hintTimerActive()) {
      let h = "";
      if (pending) h = t("hint_sending");
      else if (state.selected) h = t(coarsePointer() ? "hint_choose_end_touch" : "hint_choose_end");
      else if (acts.some((a) => a.type === "play")) h = t("hint_choose_bone");
      else if (acts.length && acts.every((a) => a.type === "draw")) h = t("hint_draw");
      ui.handHint.textContent = h;
    }

    // The yard, face down, when the only moves are draws.
    const draws = acts.filter((a) => a.type === "draw");
    if (ui.yard && ui.yardBones) {
      if (draws.length && !pending) {
        ui.yard.hidden = false;
        const n = game.yard || draws.length;
        if (ui.yardTitle) ui.yardTitle.textContent = tn("yard_title", n);
        const focusedPos = ui.yardBones.contains(document.activeElement) ? document.activeElement.dataset.position : null;
        const yb = [];
        for (let pos = 0; pos < n; pos++) {
          if (!draws.some((a) => a.position === pos)) continue;
          yb.push(
            el(
              "button",
              {
                type: "button",
                class: "yard-bone",
                "data-position": String(pos),
                "aria-label": t("draw_bone", { n: pos + 1, total: n }),
                title: t("draw_bone", { n: pos + 1, total: n }),
                onclick: () => {
                  sounds.unlock();
                  act({ type: "draw", position: pos });
                },
              },
              renderBone("0-0", { size: 20, vertical: true, faceDown: true }),
            ),
          );
        }
        patchChildren(ui.yardBones, yb);
        if (focusedPos !== null) ui.yardBones.querySelector(`[data-position="${focusedPos}"]`)?.focus();
      } else {
        ui.yard.hidden = true;
        ui.yardBones.replaceChildren();
      }
    }

    // A manual pass, if the server ever offers one that it does not make itself.
    if (ui.handActions) {
      const canPass = acts.some((a) => a.type === "pass") && !game?.forced_pass;
      patchChildren(ui.handActions, [
        ...(canPass && !pending ? [el("button", { type: "button", class: "btn", text: t("pass"), onclick: () => act({ type: "pass" }) })] : []),
        ...(state.selected ? [el("button", { type: "button", class: "btn btn-quiet", text: t("cancel_choice"), onclick: cancelSelection })] : []),
      ]);
    }
  }

  function hintTimerActive() {
    return ui.handHint && ui.handHint.dataset.hold === "1";
  }

  function renderInvite() {
    const box = ui.invite;
    if (!box) return;
    const url = state.table?.invite_url || app.dataset.inviteUrl;
    if (!url || state.game) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const input = box.querySelector("input");
    if (input && input.value !== url) input.value = url;
  }

  function renderDoublesDialog() {
    const d = ui.doublesDialog;
    if (!d) return;
    const acts = legal().filter((a) => a.type === "doubles");
    const want = acts.length > 0 && !state.pending;
    if (want && !d.open) {
      const doubles = state.doublesSeen || (state.game?.hand || []).filter((b) => parseBone(b).double);
      const box = d.querySelector(".dialog-bones");
      if (box) box.replaceChildren(...doubles.map((b) => renderBone(b, { size: 22, vertical: true, title: canonicalBone(b) })));
      if (typeof d.showModal === "function") d.showModal();
      else d.setAttribute("open", "");
      d.querySelector("button")?.focus();
    } else if (!want && d.open) {
      d.close();
    }
  }

  // ======================================================================== drag and drop

  function startDrag(ev, btn, bone) {
    if (ev.button !== undefined && ev.button !== 0) return;
    if (state.pending || !playsFor(bone).length) return;
    const drag = { bone, btn, x0: ev.clientX, y0: ev.clientY, id: ev.pointerId, active: false, ghost: null, over: null };
    const move = (e) => {
      if (e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x0;
      const dy = e.clientY - drag.y0;
      if (!drag.active) {
        if (Math.hypot(dx, dy) < 8) return;
        drag.active = true;
        state.drag = drag;
        state.selected = null;
        drag.ghost = el("div", { class: "drag-ghost", "aria-hidden": "true" }, renderBone(bone, { size: 34 }));
        document.body.append(drag.ghost);
        try {
          btn.setPointerCapture(drag.id);
        } catch {
          /* not capturable: follow window events */
        }
        renderBoardNow();
      }
      e.preventDefault();
      drag.ghost.style.transform = `translate(${e.clientX - 34}px, ${e.clientY - 17}px)`;
      const target = document.elementFromPoint(e.clientX, e.clientY)?.closest?.(".end-target.lit");
      if (drag.over && drag.over !== target) drag.over.classList.remove("drop-over");
      drag.over = target || null;
      if (target) target.classList.add("drop-over");
    };
    const end = (e) => {
      if (e.pointerId !== drag.id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      if (!drag.active) return;
      drag.ghost?.remove();
      state.drag = null;
      state.suppressClick = true;
      setTimeout(() => {
        state.suppressClick = false;
      }, 50);
      const target = e.type === "pointerup" ? document.elementFromPoint(e.clientX, e.clientY)?.closest?.(".end-target.lit") : null;
      if (target && playsFor(bone).includes(target.dataset.end)) playBone(bone, target.dataset.end);
      else if (target && playsFor(bone).length === 1) playBone(bone, playsFor(bone)[0]);
      else render();
    };
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  }

  // ======================================================================== static controls

  // ======================================================================== the drawer

  // From 1200 px wide the drawer is a column beside the felt, always shown; below, it slides
  // over the felt from the bar's button and closes with Escape, the close button or a click
  // outside it.
  const dockQuery = window.matchMedia ? window.matchMedia("(min-width: 1200px)") : null;
  function drawerDocked() {
    return !!dockQuery?.matches;
  }

  function drawerShown() {
    return drawerDocked() || state.drawerOpen;
  }

  function setDrawer(open, { focus = true } = {}) {
    state.drawerOpen = open;
    app.classList.toggle("drawer-open", open);
    ui.drawerToggle?.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      if (state.tab === "chat") clearUnread();
      if (focus) ui.tabs.find((tab) => tab.dataset.tab === state.tab)?.focus();
    } else if (focus && ui.drawer?.contains(document.activeElement)) {
      ui.drawerToggle?.focus();
    }
    scheduleLayout();
  }

  function clearUnread() {
    if (!state.unread) return;
    state.unread = 0;
    renderUnread();
  }

  function selectTab(name, { focus = false } = {}) {
    if (!ui.tabs.some((tab) => tab.dataset.tab === name)) name = "moves";
    state.tab = name;
    storage.set("localStorage", "dominologist:table-tab", name);
    for (const tab of ui.tabs) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
      const panel = document.getElementById(tab.getAttribute("aria-controls"));
      if (panel) panel.hidden = !on;
      if (on && focus) tab.focus();
    }
    if (name === "chat" && drawerShown()) clearUnread();
    if (name === "moves" && ui.log) ui.log.scrollTop = ui.log.scrollHeight;
    if (name === "chat" && ui.chatBox) ui.chatBox.scrollTop = ui.chatBox.scrollHeight;
  }

  function wireDrawer() {
    ui.drawerToggle?.addEventListener("click", () => setDrawer(!state.drawerOpen));
    ui.drawerClose?.addEventListener("click", () => setDrawer(false));
    for (const tab of ui.tabs) {
      tab.addEventListener("click", () => selectTab(tab.dataset.tab));
      tab.addEventListener("keydown", (ev) => {
        const i = ui.tabs.indexOf(tab);
        let next = null;
        if (ev.key === "ArrowRight") next = (i + 1) % ui.tabs.length;
        else if (ev.key === "ArrowLeft") next = (i - 1 + ui.tabs.length) % ui.tabs.length;
        else if (ev.key === "Home") next = 0;
        else if (ev.key === "End") next = ui.tabs.length - 1;
        if (next === null) return;
        ev.preventDefault();
        selectTab(ui.tabs[next].dataset.tab, { focus: true });
      });
    }
    document.addEventListener("pointerdown", (ev) => {
      if (!state.drawerOpen || drawerDocked()) return;
      const target = ev.target;
      if (ui.drawer?.contains(target) || ui.drawerToggle?.contains(target)) return;
      if (target.closest?.("dialog")) return;
      setDrawer(false, { focus: false });
    });
    dockQuery?.addEventListener?.("change", () => {
      if (drawerDocked()) setDrawer(false, { focus: false });
      if (state.tab === "chat" && drawerShown()) clearUnread();
    });
    selectTab(storage.get("localStorage", "dominologist:table-tab") || "moves");
    renderUnread();
  }

  // ======================================================================== fitting the screen

  /** The hand's bones as large as the rack allows, in as few rows as possible. */
  function fitHand() {
    const h = window.innerHeight;
    // With the yard open the hand cannot be played: it and the yard take less, the board more.
    const yardOpen = !!ui.yard && !ui.yard.hidden;
    const handMost = h < 500 ? 26 : h < 760 ? 30 : h < 880 ? 36 : 42;
    fitRow(ui.hand, ".hand-bone", yardOpen && h < 880 ? Math.min(handMost, 20) : handMost);
    fitRow(ui.yardBones, ".yard-bone", h < 500 ? 16 : h < 760 ? 18 : 22);
    // The rack may not grow past its place (a phone held sideways: the column beside the
    // board): smaller bones rather than a hand over the player's own bar and clock.
    const rack = ui.hand?.closest(".rack");
    for (let i = 0; rack && !rack.hidden && i < 12 && rack.scrollHeight > rack.clientHeight + 1; i++) {
      const size = parseInt(ui.hand.style.getPropertyValue("--bone"), 10) || 0;
      if (size <= 14) break;
      ui.hand.style.setProperty("--bone", `${size - 2}px`);
    }
  }

  function fitRow(box, selector, largest) {
    if (!box) return;
    const n = box.querySelectorAll(selector).length;
    const width = box.clientWidth;
    if (!n || !width) return;
    const gap = 4; // the CSS gap
    const frame = 8; // a button's padding around its bone
    let size = 0;
    for (let rows = 1; rows <= 4; rows++) {
      const perRow = Math.ceil(n / rows);
      size = Math.floor((width - gap * (perRow - 1)) / perRow) - frame;
      if (size >= 18) break;
    }
    size = Math.max(12, Math.min(largest, size));
    box.style.setProperty("--bone", `${size}px`);
  }

  let layoutFrame = 0;
  function scheduleLayout() {
    cancelAnimationFrame(layoutFrame);
    layoutFrame = requestAnimationFrame(layoutNow);
  }

  /** Fit the hand, then draw the board in the space left to it; `data-fitted` says for which
   *  window size that was done (tests wait for it after resizing). */
  function layoutNow() {
    cancelAnimationFrame(layoutFrame);
    fitHand();
    renderBoardNow();
    app.dataset.fitted = `${window.innerWidth}x${window.innerHeight}`;
  }

  function wireControls() {
    // Arrow keys move along the hand (a toolbar); Escape cancels a chosen bone.
    ui.hand?.addEventListener("keydown", (ev) => {
      const buttons = [...ui.hand.querySelectorAll(".hand-bone")];
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      let next = null;
      if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = (i + 1) % buttons.length;
      else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = (i - 1 + buttons.length) % buttons.length;
      else if (ev.key === "Home") next = 0;
      else if (ev.key === "End") next = buttons.length - 1;
      if (next === null) return;
      ev.preventDefault();
      buttons[i].tabIndex = -1;
      buttons[next].tabIndex = 0;
      buttons[next].focus();
      state.handFocus = next;
    });
    app.addEventListener("keydown", (ev) => {
      // Escape in a dialog closes that dialog (the browser does), and nothing behind it.
      if (ev.key !== "Escape" || ev.target.closest?.("dialog")) return;
      if (state.drawerOpen && !drawerDocked() && ui.drawer?.contains(document.activeElement)) {
        ev.preventDefault();
        setDrawer(false);
      } else if (state.selected) {
        ev.preventDefault();
        cancelSelection();
      } else if (ui.summary && !ui.summary.hidden) {
        hideSummary();
      } else if (state.drawerOpen && !drawerDocked()) {
        setDrawer(false);
      }
    });

    wireDrawer();

    if (ui.soundToggle) {
      const label = ui.soundToggle.querySelector("[data-sound-label]");
      const paint = () => {
        ui.soundToggle.setAttribute("aria-pressed", sounds.enabled ? "true" : "false");
        const words = sounds.enabled ? t("sound_on") : t("sound_off");
        if (label) label.textContent = words;
        ui.soundToggle.title = `${words}. ${t("sound_help")}`;
      };
      ui.soundToggle.addEventListener("click", () => {
        sounds.setEnabled(!sounds.enabled);
        paint();
      });
      paint();
    }

    // The five-doubles dialog's buttons.
    ui.doublesDialog?.addEventListener("click", (ev) => {
      const choice = ev.target.closest?.("[data-choice]")?.dataset.choice;
      if (!choice) return;
      ui.doublesDialog.close();
      act({ type: "doubles", choice });
    });
    ui.doublesDialog?.addEventListener("cancel", (ev) => ev.preventDefault()); // a choice is due

    // The invite box's copy button.
    const copy = ui.invite?.querySelector("[data-copy]");
    copy?.addEventListener("click", async () => {
      const input = ui.invite.querySelector("input");
      const status = ui.invite.querySelector("[data-copy-status]");
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        input.select();
        document.execCommand?.("copy");
      }
      if (status) status.textContent = t("copied");
    });

    wireJumps();

    // Fit the hand and redraw the board when the window or the board's box changes size.
    window.addEventListener("resize", scheduleLayout);
    if (window.ResizeObserver && ui.boardWrap) {
      let w = 0;
      let h = 0;
      new ResizeObserver((entries) => {
        const r = entries[0].contentRect;
        if (Math.abs(r.width - w) < 2 && Math.abs(r.height - h) < 2) return;
        w = r.width;
        h = r.height;
        scheduleLayout();
      }).observe(ui.boardWrap);
    }

    // The site's messages ("Your table is open…") float over the table for a moment, never
    // pushing it down; a click or the game under way sends them off.
    for (const box of document.querySelectorAll(".messages")) {
      box.classList.add("toast");
      box.addEventListener("click", () => box.remove());
      setTimeout(() => box.remove(), 8000);
    }

    // Come back quickly when the page is shown again or the network returns.
    window.addEventListener("online", () => {
      if (!state.ws && !state.fatal) connect();
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !state.ws && !state.fatal) connect();
    });
  }

  // Browsers allow sound only after a gesture on the page.
  const unlock = () => sounds.unlock();
  document.addEventListener("pointerdown", unlock, { once: true });
  document.addEventListener("keydown", unlock, { once: true });

  setupChat();
  wireControls();
  render();
  showBanner(t("connecting"), { busy: true });
  connect();

  return {
    state,
    send,
    render,
    get userId() {
      return userId;
    },
  };
}

function readStrings() {
  const node = document.getElementById("table-strings");
  if (!node) return {};
  try {
    const data = JSON.parse(node.textContent || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

const root = document.getElementById("table-app");
if (root) window.dominologistTable = startTable(root);
