// The organizer's event and series forms show only the settings the chosen mode, format and
// fee allow (and, for a series, the schedule's parts that its "Repeats" uses).
const form = document.getElementById("tournament-form") || document.getElementById("series-form");
const HEAD_TO_HEAD = ["fives", "threes"];
const GYM = ["citizen_gym", "inmate_gym"];
const ONLY = {
  limit: HEAD_TO_HEAD, bone_set: HEAD_TO_HEAD, spinner: HEAD_TO_HEAD,
  target: "house", deal: "house", get_on: "house", count_by: "house",
  clock: GYM, clock_off: GYM, workout_kind: GYM, workout_amount: GYM,
};

function wrap(name) {
  return form.querySelector(`[data-field="${name}"]`);
}

function show() {
  const mode = form.elements.mode.value;
  for (const [name, modes] of Object.entries(ONLY)) {
    const field = wrap(name);
    if (field) field.hidden = modes === "house" ? HEAD_TO_HEAD.includes(mode) : !modes.includes(mode);
  }
  const format = form.elements.format.value;
  const swiss = wrap("swiss_rounds");
  if (swiss) swiss.hidden = format !== "swiss";
  // An arena: its length instead of rounds, matches of one game, no seeding or check-in.
  const arena = format === "arena";
  for (const name of ["best_of", "seeding", "checkin_minutes", "round_minutes"]) {
    const field = wrap(name);
    if (field) field.hidden = arena;
  }
  const minutes = wrap("arena_minutes");
  if (minutes) minutes.hidden = !arena;
  const fee = form.elements.fee_kind.value;
  const dollars = wrap("fee_dollars");
  if (dollars) dollars.hidden = fee !== "dollars";
  for (const field of form.querySelectorAll('[data-field^="canteen_"]')) {
    field.hidden = fee !== "canteen";
  }
  const prizes = wrap("prize_split");
  if (prizes) prizes.hidden = fee === "free";
  const repeats = form.elements.repeats?.value;
  if (repeats) {
    const weekday = wrap("weekday");
    if (weekday) weekday.hidden = repeats !== "weekly" && repeats !== "monthly";
    const week = wrap("month_week");
    if (week) week.hidden = repeats !== "monthly";
  }
}

if (form) {
  for (const name of ["mode", "format", "fee_kind", "repeats"]) form.elements[name]?.addEventListener("change", show);
  show();
}
