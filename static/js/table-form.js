// The create-table form (the lobby's, and the challenge form, social/): it offers only what the
// chosen mode allows. Loaded as a module by each page with such a form (id "create-table") and
// the mode's rules (a json_script "mode-rules"). The server checks everything again and explains
// any refusal (without this script every field shows, grouped by the modes it is for). Hidden
// fields are disabled too, so a value typed before switching modes is not sent.
const form = document.getElementById("create-table");
export const RULES = JSON.parse(document.getElementById("mode-rules")?.textContent || "{}");
const FOUR_PLAYERS = ["cut_throat_4", "partners"];

function enable(wrap, on) {
  wrap.hidden = !on;
  for (const input of wrap.querySelectorAll("input, select, textarea")) input.disabled = !on;
}

export function offerOnly(select, allowed, fallback = "") {
  for (const option of select.options) {
    option.disabled = option.value !== "" && !allowed(option.value);
  }
  if (select.selectedOptions[0]?.disabled) select.value = fallback;
}

function labelDefault(select, value) {
  const option = select.querySelector('option[value=""]');
  const label = select.dataset.defaultLabel;
  if (option && label && value !== null && value !== undefined) {
    option.textContent = label.replace("{n}", String(value));
  }
}

function showFields() {
  const rules = RULES[form.elements.mode.value];
  if (!rules) return;
  const groups = { house: !rules.head_to_head, head_to_head: rules.head_to_head, gym: rules.gym };
  for (const [name, shown] of Object.entries(groups)) {
    const group = form.querySelector(`[data-rules-for="${name}"]`);
    if (group) enable(group, shown);
  }
  // Fives and Threes: one on one only.
  const shape = form.elements.shape;
  offerOnly(shape, (v) => !rules.head_to_head || v === "one_on_one", "one_on_one");
  // Four players cannot be dealt 9 each.
  const deal = form.elements.deal;
  if (deal) offerOnly(deal, (v) => v !== "9" || !FOUR_PLAYERS.includes(shape.value), "7");
  // Get on and the count: the mode's own values, its default named.
  const getOn = form.elements.get_on;
  if (getOn && !rules.head_to_head) {
    offerOnly(getOn, (v) => rules.get_on.includes(Number(v)));
    labelDefault(getOn, rules.get_on_default);
  }
  const countBy = form.elements.count_by;
  if (countBy && !rules.head_to_head) {
    offerOnly(countBy, (v) => rules.count_by.includes(Number(v)));
    labelDefault(countBy, rules.count_by_default);
  }
  // A clock, or "No clock": never both.
  const clockOff = form.elements.clock_off;
  const clock = form.elements.clock;
  if (rules.gym && clockOff && clock) {
    clock.disabled = clockOff.checked;
    if (clockOff.checked) clock.value = "";
    clock.placeholder = rules.clock_default ? String(rules.clock_default) : "";
  }
  // Leaving for good matters only with three or four players.
  const leave = form.querySelector('[data-field="on_leave"]');
  if (leave) enable(leave, shape.value !== "one_on_one");
  for (const note of form.querySelectorAll("[data-stake-for]")) {
    enable(note, note.dataset.stakeFor === rules.stake);
  }
}
if (form) {
  for (const name of ["mode", "shape", "clock_off"]) {
    form.elements[name]?.addEventListener("change", showFields);
  }
  showFields();
  form.classList.add("rules-live"); // only the mode's own settings show: no group headings
  document.body.dataset.createFormReady = "true";
}
