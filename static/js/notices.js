// The one site-wide socket (/ws/notices/), opened by every page of a logged-in player.
//
// Every notice the server sends is raised on `document` as
//   new CustomEvent("dominologist:notice", {detail: {kind, ...data}})
// for any page script that cares (docs/protocol.md lists the kinds). This script itself shows
// every notice that names a card (the challenges, a tournament's table ready): the card is
// fetched from the server (rendered for this reader, in the page's language) and shown in the
// notices region with its own buttons (Accept / Decline / Close), plain forms and buttons that
// work by keyboard. A page may watch one public topic on the same
// socket by naming it on an element: data-notices-watch="tournaments", or "tournament" with
// data-notices-watch-id. The socket reconnects with a growing, jittered delay (1 s to 15 s; the
// first try within a second when it was working), or at once (0-500 ms) when the server closed
// it for a restart (1012, docs/protocol.md); a server about to restart first asks it to move
// (`reconnect`): a new socket is opened, and the old one closed once the new one is greeted;
// "dominologist:notices-open" is raised each time it is (re)opened and watching, so a page can
// fetch what it missed, and "dominologist:notices-closed" when it drops.
import { createSounds } from "./sounds.js";

const region = document.getElementById("notices");
const PING_MS = 25000;
const RESTART_CLOSE = 1012; // the server is restarting: another one takes the socket at once
const RESTART_JITTER_MS = 500;
let serverOffset = 0; // server clock minus ours, from the hello and each pong
// The table sounds (static/js/sounds.js: the player's own on/off choice, shared with the table
// page). A browser plays nothing before a gesture on the page: the first one unlocks them.
const sounds = createSounds();
for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => sounds.unlock(), { once: true, capture: true });
}
const pageTitle = document.title;

function emit(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

function watchMessage() {
  const el = document.querySelector("[data-notices-watch]");
  if (!el) return null;
  const message = { type: "watch", topic: el.dataset.noticesWatch };
  if (el.dataset.noticesWatchId) message.id = Number(el.dataset.noticesWatchId);
  return message;
}

// `replacing`: the socket this one takes over from (its server is restarting and asked this
// page to move): it is closed once this one is greeted, and until then it still carries notices.
function connect(delay = 1000, replacing = null) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/notices/`);
  const watch = watchMessage();
  let greeted = false;
  let pinger = null;
  let retired = false; // closed by this page after moving to another socket
  let moving = false;
  let closed = false;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.server_time) serverOffset = message.server_time - Date.now();
    if (message.type === "hello") {
      greeted = true;
      delay = 1000;
      if (watch) socket.send(JSON.stringify(watch));
      else opened();
      pinger = setInterval(() => socket.send(JSON.stringify({ type: "ping" })), PING_MS);
      if (replacing) replacing.retire();
    } else if (message.type === "reconnect") {
      // Its server is restarting: a new socket first, then this one closes (no pause).
      if (!moving) {
        moving = true;
        connect(1000, {
          retire: () => ((retired = true), socket.close(1000)),
          // this one reconnects as usual when it closes, or now if it has closed already
          failed: () => {
            moving = false;
            if (closed) setTimeout(() => connect(1000), Math.random() * 1000);
          },
        });
      }
    } else if (message.type === "watching" || message.type === "resync") {
      // resync: notices may have been lost on the way (the server's Redis restarted): the page
      // fetches again what it shows, as after a reconnect.
      opened(message);
    } else if (message.type === "notice") {
      const { type, ...detail } = message;
      emit("dominologist:notice", detail);
      show(detail);
    }
  });
  socket.addEventListener("close", (event) => {
    clearInterval(pinger);
    closed = true;
    // A socket opened to move to that failed: the old one, still open, goes on as before (its
    // server closes it with 1012 soon, and it reconnects then; a 4009 here was the one too many).
    if (replacing && !greeted) {
      replacing.failed();
      return;
    }
    // Moved: the new socket is open, or on its way.
    if (retired || moving) return;
    const wasOpen = window.noticesReady;
    window.noticesReady = false;
    if (wasOpen) emit("dominologist:notices-closed", {});
    // 4001: not logged in; 4003: this account may not play; 4008: far past the rate limit;
    // 4009: too many notices sockets open for this account. Reconnecting would not help.
    if ([4001, 4003, 4008, 4009].includes(event.code)) return;
    if (event.code === RESTART_CLOSE && greeted) {
      setTimeout(() => connect(1000), Math.random() * RESTART_JITTER_MS);
      return;
    }
    // A socket that was working: the first retry after a random 200-1000 ms (its server or
    // machine was lost: the others take its players, spread over most of a second).
    const wait = greeted ? 200 + Math.random() * 800 : delay * (0.75 + Math.random() * 0.5);
    setTimeout(() => connect(greeted ? 2000 : Math.min(delay * 2, 15000)), wait);
  });
}

// `answer`: the socket's `watching` answer, when the page watches a topic: its `version` is
// the topic's version now, for a page to compare with the one it was rendered at.
function opened(answer = {}) {
  window.noticesReady = true;
  window.noticesVersion = answer.version; // for a page's script that starts after this
  emit("dominologist:notices-open", { version: answer.version, resync: answer.type === "resync" });
}

// --- notices shown as cards ------------------------------------------------------------------
// A notice with a `card_url` is shown: the card is fetched (rendered for this reader, in the
// page's language) and put in the notices region, replacing any card with the same
// data-notice key. The challenge notices have a few rules of their own below.

function cardFor(key) {
  return region?.querySelector(`[data-notice="${key}"]`);
}

function pageCardFor(challenge) {
  return document.querySelector(`[data-challenge-page][data-challenge="${Number(challenge)}"]`);
}

function close(card, restoreFocus = true) {
  if (!card) return;
  const hadFocus = card.contains(document.activeElement);
  card.remove();
  if (card.hasAttribute("data-alert-title")) alertsChanged();
  if (hadFocus && restoreFocus && card.returnFocus?.isConnected) card.returnFocus.focus();
}

// A card that must not be missed (a table Play now seated the player at: it is lost in 30 s)
// marks the tab's title until it is seen (the tab shown again, a key or a click on the page,
// the card closed), and sounds once when it comes, if the player has the table sounds on.
function seen() {
  document.title = pageTitle;
}

function alertsChanged() {
  if (!region?.querySelector("[data-alert-title]")) seen();
}

for (const kind of ["pointerdown", "keydown"]) document.addEventListener(kind, seen, { capture: true });
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") seen();
});

function raiseAlert(card) {
  if (!card.hasAttribute("data-alert-title")) return;
  document.title = `${card.dataset.alertTitle} · ${pageTitle}`;
  if (card.hasAttribute("data-alert-sound")) sounds.play("turn");
}

async function show(detail) {
  if (!region) return;
  const kind = String(detail.kind);
  if (kind.startsWith("challenge_") && kind !== "challenge_accepted" && pageCardFor(detail.challenge)) {
    location.reload(); // this page shows the challenge: show how it ended
    return;
  }
  if (kind === "challenge_closed") {
    close(cardFor(`challenge-${Number(detail.challenge)}`));
    return;
  }
  if (kind === "challenge_accepted" && document.visibilityState === "visible") {
    location.assign(detail.url); // the visible page goes to the table; others say where it is
    return;
  }
  if (kind === "pairing_dropped") {
    close(cardFor(`pairing-${Number(detail.table)}`));
    return;
  }
  if (kind === "pairing_seated" && detail.url && new URL(detail.url, location.origin).pathname === location.pathname) {
    return; // this page is the table: it shows the time left to press Ready itself
  }
  if (
    kind === "tournament_table_ready" &&
    document.querySelector(`[data-notices-watch="tournament"][data-notices-watch-id="${Number(detail.tournament)}"]`)
  ) {
    return; // this page is the event's: its own notice, with the table's link, comes with it
  }
  if (!detail.card_url) return; // a notice for the page's own scripts
  const url = new URL(detail.card_url, location.origin);
  if (url.origin !== location.origin) return;
  url.searchParams.set("next", location.pathname + location.search);
  const response = await fetch(url, { headers: { "X-Requested-With": "fetch" } });
  if (response.status !== 200) return; // 204: nothing to say any more
  const holder = document.createElement("div");
  holder.innerHTML = await response.text();
  const card = holder.firstElementChild;
  if (!card) return;
  const key = card.dataset.notice;
  if (key) close(cardFor(key), false);
  card.returnFocus = document.activeElement;
  region.append(card);
  wire(card);
  raiseAlert(card);
  // Into the card, not onto a button: a key pressed for the game cannot answer by accident.
  card.focus();
  document.body.dataset.noticeShown = key || kind;
}

function wire(card) {
  card.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close(card); // the challenge stays on the challenges page
  });
  for (const form of card.querySelectorAll("form[data-answer]")) {
    form.addEventListener("submit", (event) => answer(event, card, form));
  }
  for (const button of card.querySelectorAll("[data-close]")) {
    button.addEventListener("click", () => close(card));
  }
  const countdown = card.querySelector("[data-expires]");
  if (countdown) tick(card, countdown);
}

// A challenge shown in a page (its own page, the list): the countdown runs; its forms post as
// forms do.
for (const card of document.querySelectorAll("[data-challenge-page]")) {
  const countdown = card.querySelector("[data-expires]");
  if (countdown) tick(card, countdown);
}

function tick(card, countdown) {
  const left = Math.max(0, Number(countdown.dataset.expires) - (Date.now() + serverOffset));
  const seconds = Math.ceil(left / 1000);
  countdown.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  if (left <= 0) {
    card.querySelector("[data-expired]")?.removeAttribute("hidden");
    for (const form of card.querySelectorAll("form[data-answer]")) form.hidden = true;
    if (!card.hasAttribute("data-challenge-page")) setTimeout(() => close(card), 4000);
    return;
  }
  if (card.isConnected) setTimeout(() => tick(card, countdown), Math.min(1000, left));
}

async function answer(event, card, form) {
  event.preventDefault();
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  const failed = card.querySelector("[data-failed]");
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Requested-With": "fetch" },
    });
    const result = await response.json();
    if (result.ok && result.url) {
      location.assign(result.url);
      return;
    }
    if (result.ok) {
      close(card);
      return;
    }
    failed.textContent = result.message;
  } catch {
    failed.textContent = failed.dataset.offline;
  }
  failed.hidden = false;
  for (const button of card.querySelectorAll("button")) button.disabled = false;
  for (const f of card.querySelectorAll("form[data-answer]")) f.hidden = true;
}

connect();
