// Dominologist: the table page's screen-reader mode. Plain ES module, no build step.
//
// Every move is said in words in a live region (#reader-log, role=log), one line for each update
// from the server, ending with whose turn it is (the player's own turn with what fits). The
// player reads the hand, the ends, the board, the scores, the clock by typing a letter in the
// "Your move" field (or pressing it elsewhere on the page), and plays by typing a bone and an end:
// "5 3 left", "53 r", "d" to draw, "p" to pass. Every move is checked against the legal actions
// the server sent; nothing here knows more than the page was sent. The mode is kept per device
// (localStorage), like the sounds. docs/accessibility.md describes it for players.

import { keepChoice, storedChoice } from "./choice.js";

const KEY = "dominologist:reader";
const MAX_LINES = 1000;
const ENDS = ["left", "right", "up", "down"];
// Words that may stand around a bone and an end and mean nothing more ("53 on the spinner's right
// arm"), in English and Spanish.
const FILLER = new Set(["on", "the", "end", "arm", "spinner", "spinners", "s", "of", "play", "en", "la", "el", "punta", "brazo", "del", "jugar"]);
const DOUBLE = /^(double|doble|dbl)$/;
// Commands: one letter, or a word in English or Spanish.
const COMMANDS = {
  h: "hand", hand: "hand", mano: "hand",
  e: "ends", ends: "ends", puntas: "ends",
  b: "board", board: "board", mesa: "board",
  s: "scores", scores: "scores", score: "scores", tanteo: "scores", puntos: "scores",
  c: "clock", clock: "clock", reloj: "clock",
  t: "turn", turn: "turn", turno: "turn",
  l: "last", last: "last", ultima: "last", ultimo: "last",
  d: "draw", draw: "draw", robar: "draw", roba: "draw",
  p: "pass", pass: "pass", pasar: "pass", paso: "pass",
  "?": "help", help: "help", ayuda: "help",
};
// The keys that read something when pressed outside a text field (never one that acts).
const READ_KEYS = new Set(["h", "e", "b", "s", "c", "t", "l", "?"]);


function plain(text) {
  return String(text).toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "");
}

/**
 * ctx: what the table page knows, as functions: t, tn, game(), mySeat(), legal(), pending(),
 * act(action), seatName(seat), sideName(side), sideOf(seat), partners(), settings(), clockLeft(),
 * canonicalBone(bone), parseBone(bone), onChange(on).
 */
export function createReader(app, ctx) {
  const { t } = ctx;
  const ui = {
    toggle: app.querySelector("#reader-toggle"),
    panel: app.querySelector("#reader"),
    log: app.querySelector("#reader-log"),
    form: app.querySelector("#reader-form"),
    input: app.querySelector("#reader-input"),
    helpOpen: app.querySelector("#reader-help-open"),
    help: app.querySelector("#reader-help"),
  };
  // Regions that speak on their own in the ordinary mode: quiet in this one (the log says it all).
  const chatty = [app.querySelector(".move-log"), app.querySelector("#turn-status"), app.querySelector("#hand-hint"), app.querySelector("#hand-summary")].filter(Boolean);
  let on = storedChoice(KEY) === "on";
  let batch = null; // the lines of the update being applied
  let turnKey = null; // the turn last said

  // ------------------------------------------------------------------ words

  function pip(n) {
    const key = `pip_${n}`;
    const word = t(key);
    return word === key ? String(n) : word;
  }

  function boneWords(bone) {
    const b = ctx.parseBone(ctx.canonicalBone(bone));
    if (b.double) return t("sr_double", { a: pip(b.a) });
    return t("sr_bone", { a: pip(b.a), b: pip(b.b) });
  }

  function orList(items) {
    if (items.length <= 1) return items.join("");
    return t("sr_or", { a: items.slice(0, -1).join(", "), b: items[items.length - 1] });
  }

  function endName(end) {
    return t(`end_${end}`);
  }

  /** "on the left end", or "on the spinner's up arm" (up and down are always the spinner's; left
   *  and right too when the lead is the spinner). */
  function whereWords(end) {
    const spinner = ctx.game()?.board?.spinner;
    const arm = end === "up" || end === "down" || spinner?.arm === "lead";
    return t(arm ? "sr_on_arm" : "sr_on_end", { end: endName(end) });
  }

  function who(seat) {
    return seat === ctx.mySeat() ? t("sr_you") : ctx.seatName(seat);
  }

  function mine(seat) {
    return seat !== null && seat !== undefined && seat === ctx.mySeat();
  }

  /** Each bone that may be played now, with the ends it fits ("five-three on the left or right"). */
  function fitsList() {
    const byBone = new Map();
    for (const a of ctx.legal()) {
      if (a.type !== "play") continue;
      const key = ctx.canonicalBone(a.bone);
      if (!byBone.has(key)) byBone.set(key, []);
      if (a.end) byBone.get(key).push(a.end);
    }
    return [...byBone].map(([bone, ends]) => (ends.length ? t("sr_fits_on", { bone: boneWords(bone), ends: orList(ends.map(endName)) }) : boneWords(bone)));
  }

  function turnWords() {
    const g = ctx.game();
    if (!g || g.phase === "game_over") return t("sr_game_over");
    const me = ctx.mySeat();
    if (g.to_act === null || g.to_act === undefined) return "";
    if (me === null || g.to_act !== me) return t("sr_their_turn", { name: ctx.seatName(g.to_act) });
    const acts = ctx.legal();
    if (g.phase === "choosing_doubles") return t("sr_your_doubles");
    if (acts.some((a) => a.type === "play")) return t(g.board?.lead ? "sr_your_turn" : "sr_your_lead", { list: fitsList().join("; ") });
    if (acts.some((a) => a.type === "draw")) return t("sr_your_turn_draw", { yard: g.yard ?? 0 });
    if (acts.some((a) => a.type === "pass")) return t("sr_your_turn_pass");
    return "";
  }

  function playWords(ev) {
    const bone = boneWords(ev.bone);
    if (!ev.end) return t(mine(ev.seat) ? "sr_you_led" : "sr_led", { name: who(ev.seat), bone, count: ev.count });
    return t(mine(ev.seat) ? "sr_you_played" : "sr_played", { name: who(ev.seat), bone, where: whereWords(ev.end), count: ev.count });
  }

  function handsLeft(hands) {
    if (!Array.isArray(hands)) return "";
    const list = hands.map((bones, seat) => t("sr_hand_left", { name: who(seat), bones: bones.length ? bones.map(boneWords).join(", ") : t("summary_no_bones") }));
    return t("sr_hands_left", { list: list.join("; ") });
  }

  function scoreList(scores) {
    return (scores || []).map((score, side) => t("sr_side_score", { side: ctx.sideName(side), score })).join(", ");
  }

  /** What one event says, in words (`logText`, the move log's line, where it says enough). */
  function eventWords(ev, logText) {
    switch (ev.type) {
      case "bone_played":
        return playWords(ev);
      case "drew":
        return ev.bone ? t("sr_you_drew", { bone: boneWords(ev.bone), yard: ev.yard }) : t("sr_drew", { name: who(ev.seat), yard: ev.yard });
      case "scored":
        // The player's own side: "You scored 15 (40 in all)"; any other, as the move log says it.
        if (ev.reason === "ends" && ctx.mySeat() !== null && ctx.sideOf(ctx.mySeat()) === ev.side && !ctx.partners()) {
          return t("sr_you_scored", { points: ev.points, score: ev.score });
        }
        return logText || "";
      case "passed":
        return t(mine(ev.seat) ? "sr_you_passed" : "sr_passed", { name: who(ev.seat) });
      case "dealt":
        return Array.isArray(ev.hand) ? t("sr_dealt", { deal: ev.deal ?? "", bones: ev.hand.map(boneWords).join(", ") }) : t("sr_dealt_watching", { deal: ev.deal ?? "" });
      case "hand_over":
        return [logText, handsLeft(ev.hands)].filter(Boolean).join(" ");
      case "game_over":
        return [logText, t("sr_final", { list: scoreList(ev.scores || ctx.game()?.scores) })].join(" ");
      case "wash":
        return ""; // every hand has one: the deal says enough
      default:
        return logText || "";
    }
  }

  // ------------------------------------------------------------------ reading

  function handWords() {
    const g = ctx.game();
    if (ctx.mySeat() === null || !g) return t("sr_not_seated");
    const hand = g.hand || [];
    if (!hand.length) return t("sr_hand_empty");
    const parts = [t("sr_hand", { n: hand.length, bones: hand.map(boneWords).join(", ") })];
    if (g.to_act === ctx.mySeat()) parts.push(turnWords());
    return parts.join(" ");
  }

  function endsList() {
    const ends = ctx.game()?.board?.ends || [];
    return ends.map((e) => (e.counts !== e.value ? t("sr_end_double", { end: endName(e.end), value: e.value, counts: e.counts }) : t("sr_end_value", { end: endName(e.end), value: e.value })));
  }

  function endsWords() {
    const board = ctx.game()?.board;
    if (!board?.lead) return t("sr_board_empty");
    return t("sr_ends", { list: endsList().join(", "), total: board.total ?? 0 });
  }

  function boardWords() {
    const board = ctx.game()?.board;
    if (!board?.lead) return t("sr_board_empty");
    const arms = [];
    for (const end of ENDS) {
      const bones = board.arms?.[end] || [];
      if (bones.length) arms.push(t("sr_arm", { end: endName(end), bones: bones.map((b) => boneWords(b.bone)).join(", ") }));
    }
    const parts = [t("sr_board", { n: board.size ?? "", lead: boneWords(board.lead.bone), arms: arms.join(" ") })];
    if (board.spinner) parts.push(t("sr_spinner_is", { bone: boneWords(board.spinner.bone) }));
    parts.push(endsWords());
    return parts.join(" ");
  }

  function scoresWords() {
    const g = ctx.game();
    if (!g) return t("sr_no_game");
    return t("sr_scores", { list: scoreList(g.scores), target: ctx.settings().target || "" });
  }

  function clockWords() {
    const g = ctx.game();
    if (!ctx.settings().clock) return t("sr_no_clock");
    const left = ctx.clockLeft();
    if (left === null || !g || g.to_act === null || g.to_act === undefined) return t("sr_clock_idle");
    return t("sr_clock", { name: who(g.to_act), n: Math.ceil(left / 1000) });
  }

  function countsWords() {
    const g = ctx.game();
    if (!g) return t("sr_no_game");
    const sizes = (g.hand_sizes || []).map((n, seat) => t("sr_side_score", { side: who(seat), score: n }));
    return [turnWords(), t("sr_counts", { list: sizes.join(", "), yard: g.yard ?? 0 })].filter(Boolean).join(" ");
  }

  function lastWords() {
    const last = ctx.game()?.last_play;
    if (!last || !ctx.game()?.board?.lead) return t("sr_last_none");
    return t("sr_last", { text: playWords(last) });
  }

  // ------------------------------------------------------------------ typing

  function refuse(text) {
    ui.input?.setAttribute("aria-invalid", "true");
    say(text, "error");
    return false;
  }

  function canAct() {
    const g = ctx.game();
    if (!g || ctx.mySeat() === null) return refuse(t("sr_no_game"));
    if (g.phase === "game_over") return refuse(t("sr_game_over"));
    if (ctx.pending()) return refuse(t("sr_wait"));
    if (g.to_act !== ctx.mySeat()) return refuse(g.to_act === null || g.to_act === undefined ? t("sr_no_game") : t("sr_not_your_turn", { name: ctx.seatName(g.to_act) }));
    return true;
  }

  function endsOf(bone) {
    const key = ctx.canonicalBone(bone);
    return ctx
      .legal()
      .filter((a) => a.type === "play" && ctx.canonicalBone(a.bone) === key)
      .map((a) => a.end ?? null);
  }

  /** The ends a typed word may name: the start of an end's name in the page's language or in
   *  English ("l", "izq", "down"). */
  function endsNamed(word) {
    return ENDS.filter((end) => [end, plain(endName(end))].some((name) => name.startsWith(word)));
  }

  function play(bone, word) {
    if (!canAct()) return false;
    const g = ctx.game();
    const key = ctx.canonicalBone(bone);
    if (!(g.hand || []).some((b) => ctx.canonicalBone(b) === key)) return refuse(t("sr_not_held", { bone: boneWords(key) }));
    const fits = endsOf(key);
    if (!fits.length) {
      if (ctx.legal().some((a) => a.type === "draw")) return refuse(t("sr_nothing_fits_draw", { bone: boneWords(key) }));
      return refuse(t("sr_does_not_fit", { bone: boneWords(key), values: orList((g.board?.ends || []).map((e) => String(e.value))) }));
    }
    const named = fits.filter(Boolean);
    let end = null;
    if (named.length) {
      if (word) {
        let candidates = endsNamed(word);
        if (candidates.length > 1) candidates = candidates.filter((e) => named.includes(e));
        if (candidates.length > 1) return refuse(t("sr_ambiguous_end", { word, ends: orList(candidates.map(endName)) }));
        if (!candidates.length) return refuse(t("sr_unknown", { text: ui.input?.value || word }));
        end = candidates[0];
        if (!named.includes(end)) return refuse(t("sr_not_on_end", { bone: boneWords(key), end: whereWords(end), fits: orList(named.map(whereWords)) }));
      } else if (named.length === 1) {
        end = named[0];
      } else {
        const a = ctx.parseBone(key);
        return refuse(t("sr_which_end", { bone: boneWords(key), fits: orList(named.map(whereWords)), example: `${a.a} ${a.b} ${endName(named[0])}` }));
      }
    }
    const action = ctx.legal().find((x) => x.type === "play" && ctx.canonicalBone(x.bone) === key && (x.end ?? null) === end);
    const out = { type: "play", bone: action.bone };
    if (action.end) out.end = action.end;
    return ctx.act(out);
  }

  function simple(type) {
    if (!canAct()) return false;
    const action = ctx.legal().find((a) => a.type === type);
    if (!action) return refuse(t(type === "draw" ? "sr_cannot_draw" : "sr_cannot_pass"));
    if (type === "draw") return ctx.act({ type: "draw", position: action.position });
    return ctx.act({ type: "pass" });
  }

  function command(name) {
    switch (name) {
      case "hand":
        return say(handWords());
      case "ends":
        return say(endsWords());
      case "board":
        return say(boardWords());
      case "scores":
        return say(scoresWords());
      case "clock":
        return say(clockWords());
      case "turn":
        return say(countsWords());
      case "last":
        return say(lastWords());
      case "help":
        return say(t("sr_help"));
      case "draw":
      case "pass":
        return simple(name);
      default:
        return false;
    }
  }

  /** One typed line: a command, or a bone and an end. */
  function run(text) {
    const s = plain(text).trim();
    if (!s) return false;
    if (COMMANDS[s]) return command(COMMANDS[s]);
    const digits = s.match(/\d/g) || [];
    const words = (s.match(/[a-z?]+/g) || []).filter((w) => !FILLER.has(w));
    const double = words.some((w) => DOUBLE.test(w));
    const rest = words.filter((w) => !DOUBLE.test(w));
    let bone = null;
    if (digits.length === 2) bone = `${digits[0]}-${digits[1]}`;
    else if (digits.length === 1 && double) bone = `${digits[0]}-${digits[0]}`;
    if (!bone || rest.length > 1) return refuse(t("sr_unknown", { text: text.trim() }));
    return play(bone, rest[0] || null);
  }

  // ------------------------------------------------------------------ the live region

  function say(text, cls = "") {
    if (!on || !ui.log || !text) return true;
    const p = document.createElement("p");
    if (cls) p.className = cls;
    p.textContent = text;
    ui.log.append(p);
    while (ui.log.querySelectorAll("p").length > MAX_LINES) ui.log.querySelector("p").remove();
    ui.log.scrollTop = ui.log.scrollHeight;
    return true;
  }

  /** An update from the server begins: its events' words are gathered into one line. */
  function begin() {
    batch = on ? [] : null;
  }

  function event(ev, logText) {
    if (!batch) return;
    const words = eventWords(ev, logText);
    if (words) batch.push(words);
  }

  /** The update is drawn: say its line, ending with whose turn it is when that changed (the
   *  player's own turn each time what it may do changed: after a draw too). */
  function end() {
    if (!on) return;
    const lines = batch || [];
    batch = null;
    const g = ctx.game();
    const me = ctx.mySeat();
    let key = null;
    if (g && g.phase !== "game_over" && g.to_act !== null && g.to_act !== undefined && g.phase !== "awaiting_deal") {
      key = me !== null && g.to_act === me ? `me:${g.version}` : `them:${g.deal}:${g.to_act}`;
    }
    if (key && key !== turnKey && !ctx.pending()) {
      const words = turnWords();
      if (words) lines.push(words);
    }
    if (key || (g && g.phase === "game_over")) turnKey = key;
    if (lines.length) say(lines.join(" "));
  }

  // ------------------------------------------------------------------ the mode

  function paint() {
    app.classList.toggle("reader-mode", on);
    if (ui.panel) ui.panel.hidden = !on;
    if (ui.toggle) {
      ui.toggle.setAttribute("aria-pressed", on ? "true" : "false");
      ui.toggle.title = `${t(on ? "reader_on" : "reader_off")}. ${t("reader_help")}`;
    }
    for (const node of chatty) {
      if (on) node.setAttribute("aria-live", "off");
      else if (node.id === "hand-summary" || node.id === "hand-hint" || node.id === "turn-status" || node.classList.contains("move-log")) node.setAttribute("aria-live", "polite");
    }
  }

  function setOn(value, { focus = false } = {}) {
    on = value;
    keepChoice(KEY, on ? "on" : "off");
    turnKey = null;
    paint();
    ctx.onChange?.(on);
    if (on) {
      say(t("reader_started"));
      end(); // whose turn it is now
      if (focus) ui.input?.focus();
    }
  }

  function openHelp() {
    if (!ui.help) return;
    if (typeof ui.help.showModal === "function") ui.help.showModal();
    else ui.help.setAttribute("open", "");
    ui.help.querySelector("[data-close]")?.focus();
  }

  ui.toggle?.addEventListener("click", () => setOn(!on, { focus: true }));
  ui.form?.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = ui.input.value;
    ui.input.removeAttribute("aria-invalid");
    if (run(text) !== false) ui.input.value = "";
    else ui.input.select();
  });
  ui.input?.addEventListener("input", () => ui.input.removeAttribute("aria-invalid"));
  ui.helpOpen?.addEventListener("click", openHelp);
  ui.help?.addEventListener("click", (ev) => {
    if (ev.target.closest?.("[data-close]")) {
      ui.help.close();
      ui.input?.focus();
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (!on || ev.ctrlKey || ev.altKey || ev.metaKey || ev.defaultPrevented) return;
    const target = ev.target;
    if (target?.closest?.("input, textarea, select, [contenteditable], dialog")) return;
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : "";
    if (key === "m") {
      ev.preventDefault();
      ui.input?.focus();
    } else if (READ_KEYS.has(key)) {
      ev.preventDefault();
      command(COMMANDS[key]);
    }
  });
  paint();

  return {
    get on() {
      return on;
    },
    begin,
    event,
    end,
    say,
    /** A message the page announces by itself (a hint, the clock's hurry): said, unless an
     *  update is being applied (its events' words say it already). */
    announce(text) {
      if (!batch) say(text);
    },
    run,
    setOn,
  };
}
