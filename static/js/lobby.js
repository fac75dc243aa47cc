import { RULES, offerOnly } from "./table-form.js";

// The lobby updates live: the lobby socket says a table changed, and the list is fetched again
// (server-rendered, so it stays translated). Falls back to a slow refresh when the socket is away.
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

function connect(delay = 1000) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby/`);
  socket.addEventListener("open", () => {
    window.lobbyReady = true;
    delay = 1000;
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "table" || message.type === "watchers") schedule();
  });
  socket.addEventListener("close", () => {
    window.lobbyReady = false;
    setTimeout(() => connect(Math.min(delay * 2, 15000)), delay);
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
