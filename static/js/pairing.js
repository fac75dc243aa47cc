// The "Play now" waiting panel: a live count of the wait, the pool's size polled every few
// seconds, and off to the table as soon as the pool seats this player (the notices socket
// says so at once; the status poll catches it otherwise).
(() => {
  "use strict";
  const section = document.getElementById("play-now");
  if (!section) return;
  const statusUrl = section.dataset.statusUrl;
  // The table the pool seated this player at, by way of a page that says how long they have
  // to press Ready.
  const tableUrl = section.dataset.tableUrl;
  const POLL_MS = 3000;

  const goTo = (url) => {
    if (typeof url === "string" && url.startsWith("/") && !url.startsWith("//")) {
      window.location.assign(url);
    }
  };

  document.addEventListener("dominologist:notice", (event) => {
    const notice = event.detail || {};
    if (notice.kind === "pairing_seated") goTo(tableUrl);
  });

  const panel = document.getElementById("pool-panel");
  if (!panel) {
    section.dataset.pairingReady = "true";
    return;
  }
  const offset = Number(panel.dataset.serverTime) - Date.now();
  const joined = Number(panel.dataset.joined);
  const wait = document.getElementById("pool-wait");
  const size = document.getElementById("pool-size");
  const range = document.getElementById("pool-range");

  const tick = () => {
    const seconds = Math.max(0, Math.floor((Date.now() + offset - joined) / 1000));
    wait.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  };
  tick();
  setInterval(tick, 1000);

  const poll = async () => {
    try {
      const response = await fetch(statusUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        cache: "no-store",
      });
      if (response.ok) {
        const status = await response.json();
        if (status.state === "seated") {
          goTo(tableUrl);
          return;
        }
        if (status.state !== "waiting") {
          window.location.reload(); // left the pool elsewhere, or lost a seat: show the grid
          return;
        }
        size.textContent = String(status.pool_size);
        range.textContent = String(status.range);
        panel.dataset.polls = String(Number(panel.dataset.polls || 0) + 1);
      }
    } catch (_error) {
      // offline for a moment: try again at the next beat
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
  section.dataset.pairingReady = "true";
})();
