import { RULES, offerOnly } from "./table-form.js";

// The lobby updates live: the lobby socket says a table changed, and the list is fetched again
// (server-rendered, so it stays translated); watcher counts (many tables' in one message, at
// most every second) are written into their rows in place, with no fetch.
const list = document.getElementById("lobby-list");
const query = new URLSearchParams(location.search);
const mode = query.get("mode") || "";
const stake = query.get("stake") || "";
let pending = null;

async function refresh() {
  pending = null;
  const params = new URLSearchParams({ mode, stake });
  const response = await fetch(`${list.dataset.url}?${params}`, {
    headers: { "X-Requested-With": "fetch" },
  });
  if (response.ok) {
    list.innerHTML = await response.text();
    document.body.dataset.lobbyRefreshed = String(Date.now());
  }
}

function schedule() {
  if (!pending) pending = setTimeout(refresh, 150);
}

function showWatchers(tables) {
  const text = list.dataset.watchingText || "{n}";
  for (const [id, n] of Object.entries(tables || {})) {
    const chip = list.querySelector(`[data-watchers="${CSS.escape(id)}"]`);
    if (chip) chip.textContent = text.replace("{n}", String(n));
  }
}

// The server is restarting (1012, docs/protocol.md): another one takes the socket at once.
const RESTART_CLOSE = 1012;
const RESTART_JITTER_MS = 500;

// A server about to restart first asks the socket to move (`reconnect`): a new one is opened,
// and the old one (`replacing`) closed once it is, carrying the lobby's news until then.
function connect(delay = 1000, again = false, replacing = null) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby/`);
  let opened = false;
  let retired = false; // closed by this page after moving to another socket
  let moving = false;
  let closed = false;
  socket.addEventListener("open", () => {
    opened = true;
    window.lobbyReady = true;
    delay = 1000;
    if (replacing) replacing.retire();
    else if (again) schedule(); // the list may have changed while the socket was away
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    // resync: the server may have lost changes on the way (its Redis restarted): fetch again.
    if (message.type === "table" || message.type === "resync") schedule();
    else if (message.type === "watchers") showWatchers(message.tables);
    else if (message.type === "reconnect" && !moving) {
      moving = true;
      connect(1000, false, {
        retire: () => ((retired = true), socket.close(1000)),
        // this one reconnects as usual when it closes, or now if it has closed already
        failed: () => {
          moving = false;
          if (closed) setTimeout(() => connect(1000, true), Math.random() * 1000);
        },
      });
    }
  });
  socket.addEventListener("close", (event) => {
    closed = true;
    // A socket opened to move to that failed: the old one goes on as before (its server
    // closes it with 1012 soon, and it reconnects then).
    if (replacing && !opened) {
      replacing.failed();
      return;
    }
    // Moved: the new socket is open, or on its way.
    if (retired || moving) return;
    window.lobbyReady = false;
    if (event.code === RESTART_CLOSE && opened) {
      setTimeout(() => connect(1000, true), Math.random() * RESTART_JITTER_MS);
      return;
    }
    // A socket that was working: the first retry after a random 200-1000 ms.
    if (opened) setTimeout(() => connect(2000, true), 200 + Math.random() * 800);
    else setTimeout(() => connect(Math.min(delay * 2, 15000), true), delay);
  });
}

// Practice: Fives and Threes are one on one, so the other shapes are off for them.
const practice = document.getElementById("practice-form");
if (practice) {
  const practiceMode = practice.elements["practice-mode"];
  const practiceShape = practice.elements["practice-shape"];
  const syncShape = () => {
    const oneOnOne = RULES[practiceMode.value]?.head_to_head;
    offerOnly(practiceShape, (v) => !oneOnOne || v === "one_on_one", "one_on_one");
  };
  practiceMode.addEventListener("change", syncShape);
  syncShape();
}
connect();
