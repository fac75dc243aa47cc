// Sign-up: the player's time zone, from the browser, so that "today" (for the age gate) and the
// times the site shows are theirs. Without it the account starts in UTC.
const zone = document.getElementById("id_time_zone");
try {
  if (zone && !zone.value) zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
} catch {
  // an old browser: the server's default applies
}
