// An event's page (and the list, and the organizer's page) update live: the tournament socket
// says the event changed, and the live part is fetched again (server-rendered, so it stays
// translated and shows this viewer's own buttons and notices). Without the socket, it polls.
const live = document.getElementById("live") || document.getElementById("tournament-lists");
let pending = null;
let lastSeq = -1;
let socketOpen = false;

async function refresh() {
  pending = null;
  const focused = document.activeElement && document.activeElement.id;
  const response = await fetch(live.dataset.liveUrl, {
    headers: { "X-Requested-With": "fetch" },
    credentials: "same-origin",
  });
  if (!response.ok) return;
  const html = await response.text();
  const open = [...live.querySelectorAll("details[open]")].map((d) => d.querySelector("summary")?.textContent);
  // Nobody is typing a reason into a form that the refresh would wipe.
  const typing = live.contains(document.activeElement) && /^(TEXTAREA|INPUT|SELECT)$/.test(document.activeElement.tagName);
  if (typing) {
    schedule(3000);
    return;
  }
  live.innerHTML = html;
  for (const details of live.querySelectorAll("details")) {
    const summary = details.querySelector("summary")?.textContent;
    if (open.includes(summary)) details.open = true;
  }
  if (focused) document.getElementById(focused)?.focus();
  document.body.dataset.liveRefreshed = String(Date.now());
}

function schedule(delay = 150) {
  if (!pending) pending = setTimeout(refresh, delay);
}

function connect(delay = 1000) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${live.dataset.wsPath}`);
  socket.addEventListener("open", () => {
    socketOpen = true;
    window.tournamentReady = true;
    delay = 1000;
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "changed" && message.seq !== lastSeq) {
      lastSeq = message.seq;
      schedule();
    }
  });
  socket.addEventListener("close", () => {
    socketOpen = false;
    window.tournamentReady = false;
    setTimeout(() => connect(Math.min(delay * 2, 15000)), delay);
  });
}

if (live) {
  connect();
  // The socket is the fast path; a slow poll catches anything missed while it was away.
  setInterval(() => {
    if (!socketOpen || document.visibilityState === "visible") schedule(0);
  }, 30000);
}
