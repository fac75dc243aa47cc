// An event's page (and the list, and the organizer's page) update live: the notices socket
// says the event changed, and the live part is fetched again (server-rendered, so it stays
// translated and shows this viewer's own buttons and notices). Without the socket, it polls.
const live = document.getElementById("live") || document.getElementById("tournament-lists");
let pending = null;
let lastHeard = "";
let socketOpen = false;
// One fetch at a time: a change while one is on its way fetches again after it (two at once
// could answer out of order, and the older picture would stay on the page).
let fetching = false;
let again = false;

async function refresh() {
  pending = null;
  if (fetching) {
    again = true;
    return;
  }
  fetching = true;
  try {
    await fetchLive();
  } finally {
    fetching = false;
    if (again) {
      again = false;
      schedule(0);
    }
  }
}

async function fetchLive() {
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
    // The same change may be heard twice (the event's group and the list's); the list hears
    // every event's, each with its own seq.
    const heard = `${notice.tournament}:${notice.seq}`;
    if (notice.kind === "tournament_changed" && heard !== lastHeard) {
      lastHeard = heard;
      schedule();
    }
    if (notice.kind === "arena_standings") arenaFrame(notice);
    // The viewer's own arena game (its table is ready): their part of the page changes.
    if (notice.kind === "tournament_table_ready" && String(notice.tournament) === document.getElementById("arena")?.dataset.tournament) {
      schedule();
    }
  });
  let opens = 0;
  const opened = (event) => {
    socketOpen = true;
    window.tournamentReady = true;
    // Back after a drop (or told notices were lost): fetch what was missed. The first time,
    // a change made between the page's rendering and its watching was not heard: the socket's
    // answer says the topic's version now, and the page fetches unless it shows that one.
    const version = event?.detail?.version;
    if (opens++ > 0 || event?.detail?.resync || String(version) !== live.dataset.liveVersion) schedule(0);
  };
  document.addEventListener("dominologist:notices-open", opened);
  document.addEventListener("dominologist:notices-closed", () => {
    socketOpen = false;
    window.tournamentReady = false;
  });
  if (window.noticesReady) opened({ detail: { version: window.noticesVersion } });
}

if (live) {
  watch();
  // The socket is the fast path; a slow poll catches anything missed while it was away.
  setInterval(() => {
    if (!socketOpen || document.visibilityState === "visible") schedule(0);
  }, 30000);
}

// An arena's standings arrive as one frame for every viewer (at most one a second): the rows
// are drawn here; the page's own part is fetched again only when this viewer's place, points or
// games changed (their game ended, or they joined). What the page shows now is in the box's
// data-place (rendered with it, and again with every refresh).

// The BOT mark after a bot account's name, as the pages' own (accounts/templatetags/players.py):
// "BOT" to the eye, "(bot)" to a screen reader.
function botBadge(words) {
  const badge = document.createElement("span");
  badge.className = "badge badge-bot";
  badge.title = words.botTitle || "";
  const seen = document.createElement("span");
  seen.setAttribute("aria-hidden", "true");
  seen.textContent = words.bot || "BOT";
  const read = document.createElement("span");
  read.className = "visually-hidden";
  read.textContent = words.botRead || "(bot)";
  badge.append(seen, read);
  return badge;
}

// A club battle's clubs, best first: place, club (a link to its page) with how many play for
// it, points, and the players who count with their points.
function clubsFrame(clubs) {
  const body = document.getElementById("arena-clubs");
  if (!body || !clubs.length) return;
  const words = document.getElementById("arena-strings")?.dataset || {};
  body.replaceChildren(
    ...clubs.map((c) => {
      const tr = document.createElement("tr");
      const td = (text, cls) => {
        const cell = document.createElement("td");
        if (cls) cell.className = cls;
        if (text !== null) cell.textContent = String(text);
        tr.append(cell);
        return cell;
      };
      td(c.rank);
      const name = td(null);
      const link = document.createElement("a");
      link.href = c.url;
      link.textContent = c.name;
      const count = document.createElement("span");
      count.className = "help";
      count.textContent = `${c.players} ${body.dataset.playersWord || ""}`;
      name.append(link, " ", count);
      td(c.score, "num");
      const top = td(null);
      c.top.forEach((p, i) => {
        if (i) top.append(", ");
        top.append(p.name);
        if (p.bot) top.append(" ", botBadge(words));
        top.append(` (${p.score})`);
      });
      return tr;
    }),
  );
}

function arenaFrame(frame) {
  const box = document.getElementById("arena");
  if (!box || String(frame.tournament) !== box.dataset.tournament) return;
  if (Number(frame.seq) <= Number(box.dataset.seq || 0)) return; // an older frame
  box.dataset.seq = String(frame.seq);
  const words = document.getElementById("arena-strings")?.dataset || {};
  const me = Number(box.dataset.me);
  const rows = frame.top.map((r) => {
    const tr = document.createElement("tr");
    if (r.player === me) tr.classList.add("mine");
    if (r.paused) tr.classList.add("paused");
    const cell = (text, cls) => {
      const td = document.createElement("td");
      if (cls) td.className = cls;
      if (text !== null) td.textContent = String(text);
      tr.append(td);
      return td;
    };
    cell(r.rank);
    const name = cell(r.name);
    if (r.bot) name.append(" ", botBadge(words));
    if (r.paused) {
      const note = document.createElement("span");
      note.className = "help";
      note.textContent = words.paused || "paused";
      name.append(" ", note);
    }
    cell(r.score, "num");
    const streak = cell(r.streak, "arena-streak");
    if (r.fire) {
      const badge = document.createElement("span");
      badge.className = "badge arena-fire";
      badge.textContent = words.fire || "On fire";
      streak.append(" ", badge);
    }
    cell(r.games, "num");
    cell(r.performance, "num");
    const recent = cell(null, "arena-recent"); // last: on a phone, only the history scrolls
    r.recent.forEach((mark, i) => {
      const span = document.createElement("span");
      span.className = `mark mark-${mark}`;
      const points = document.createElement("small");
      points.textContent = String(r.points?.[i] ?? "");
      span.append(mark, points);
      recent.append(span);
    });
    return tr;
  });
  const body = document.getElementById("arena-rows");
  if (body) {
    if (rows.length) body.replaceChildren(...rows);
    else {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 7;
      td.textContent = words.none || "";
      tr.append(td);
      body.replaceChildren(tr);
    }
  }
  if (frame.clubs) clubsFrame(frame.clubs);
  const players = document.getElementById("arena-players");
  if (players) players.textContent = String(frame.players);
  const watch = document.getElementById("arena-watch");
  if (watch) {
    watch.hidden = !frame.watch;
    const link = watch.querySelector("a");
    if (link && frame.watch) link.href = frame.watch;
  }
  const mine = frame.ranks.find((r) => r[0] === me);
  const row = frame.top.find((r) => r.player === me);
  const place = mine ? `${mine[1]}:${mine[2]}:${row ? row.games : ""}` : "";
  if (place !== (box.dataset.place || "")) schedule();
  box.dataset.place = place;
  document.body.dataset.arenaSeq = String(frame.seq);
}
