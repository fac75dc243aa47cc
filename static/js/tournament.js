// An event's page (and the list, and the organizer's page) update live: the notices socket
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

// The page watches its event (or the list) on the site-wide notices socket (notices.js): a
// change arrives as a "tournament_changed" notice; a (re)opened socket may have missed some.
function watch() {
  document.addEventListener("dominologist:notice", (event) => {
    const notice = event.detail;
    if (notice.kind === "tournament_changed" && notice.seq !== lastSeq) {
      lastSeq = notice.seq;
      schedule();
    }
  });
  let opens = 0;
  const opened = () => {
    socketOpen = true;
    window.tournamentReady = true;
    if (opens++ > 0) schedule(0); // back after a drop: fetch what was missed
  };
  document.addEventListener("dominologist:notices-open", opened);
  document.addEventListener("dominologist:notices-closed", () => {
    socketOpen = false;
    window.tournamentReady = false;
  });
  if (window.noticesReady) opened();
}

if (live) {
  watch();
  // The socket is the fast path; a slow poll catches anything missed while it was away.
  setInterval(() => {
    if (!socketOpen || document.visibilityState === "visible") schedule(0);
  }, 30000);
}
