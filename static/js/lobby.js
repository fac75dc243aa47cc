// The lobby updates live: the lobby socket says a table changed, and the list is fetched again
// (server-rendered, so it stays translated). Falls back to a slow refresh when the socket is away.
const list = document.getElementById("lobby-list");
const mode = new URLSearchParams(location.search).get("mode") || "";
let pending = null;

async function refresh() {
  pending = null;
  const response = await fetch(`${list.dataset.url}?mode=${encodeURIComponent(mode)}`, {
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

// The create form shows only the settings its mode allows.
const form = document.getElementById("create-table");
const HEAD_TO_HEAD = ["fives", "threes"];
const GYM = ["citizen_gym", "inmate_gym"];
const ONLY = {
  limit: HEAD_TO_HEAD, bone_set: HEAD_TO_HEAD, spinner: HEAD_TO_HEAD,
  target: "house", deal: "house", get_on: "house", count_by: "house",
  clock: GYM, clock_off: GYM, workout_kind: GYM, workout_amount: GYM,
};
function showFields() {
  const m = form.elements.mode.value;
  for (const [name, modes] of Object.entries(ONLY)) {
    const wrap = form.querySelector(`[data-field="${name}"]`);
    if (!wrap) continue;
    const shown = modes === "house" ? !HEAD_TO_HEAD.includes(m) : modes.includes(m);
    wrap.hidden = !shown;
  }
  const leave = form.querySelector('[data-field="on_leave"]');
  if (leave && form.elements.shape) leave.hidden = form.elements.shape.value === "one_on_one";
  const stake = GYM.includes(m) ? "workout" : m.startsWith("inmate") ? "canteen" : "dollars";
  for (const note of form.querySelectorAll("[data-stake-for]")) {
    note.hidden = note.dataset.stakeFor !== stake;
  }
}
if (form) {
  form.elements.mode.addEventListener("change", showFields);
  form.elements.shape?.addEventListener("change", showFields);
  showFields();
}
connect();
