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
// data-notices-watch-id. The socket reconnects with a growing, jittered delay (1 s to 15 s);
// "dominologist:notices-open" is raised each time it is (re)opened and watching, so a page can
// fetch what it missed, and "dominologist:notices-closed" when it drops.
const region = document.getElementById("notices");
const PING_MS = 25000;
let serverOffset = 0; // server clock minus ours, from the hello and each pong
let pinger = null;

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

function connect(delay = 1000) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/notices/`);
  const watch = watchMessage();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.server_time) serverOffset = message.server_time - Date.now();
    if (message.type === "hello") {
      delay = 1000;
      if (watch) socket.send(JSON.stringify(watch));
      else opened();
      pinger = setInterval(() => socket.send(JSON.stringify({ type: "ping" })), PING_MS);
    } else if (message.type === "watching") {
      opened();
    } else if (message.type === "notice") {
      const { type, ...detail } = message;
      emit("dominologist:notice", detail);
      show(detail);
    }
  });
  socket.addEventListener("close", (event) => {
    clearInterval(pinger);
    const wasOpen = window.noticesReady;
    window.noticesReady = false;
    if (wasOpen) emit("dominologist:notices-closed", {});
    // 4001: not logged in; 4003: this account may not play. Reconnecting would not help.
    if (event.code === 4001 || event.code === 4003) return;
    const wait = delay * (0.75 + Math.random() * 0.5);
    setTimeout(() => connect(Math.min(delay * 2, 15000)), wait);
  });
}

function opened() {
  window.noticesReady = true;
  emit("dominologist:notices-open", {});
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
  if (hadFocus && restoreFocus && card.returnFocus?.isConnected) card.returnFocus.focus();
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
