// Dominologist: tiny table sounds made with WebAudio (no audio files).
// Off by default when the player prefers reduced motion; the choice is kept in localStorage.

import { keepChoice, storedChoice } from "./choice.js";

const KEY = "dominologist:sound";


export function createSounds() {
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const stored = storedChoice(KEY);
  let enabled = stored === null ? !reduced : stored === "on";
  let ctx = null;
  let unlocked = false; // no AudioContext before a user gesture (browsers refuse one)

  function context() {
    if (!enabled || !unlocked) return null;
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    if (!ctx) {
      try {
        ctx = new AC();
      } catch {
        return null;
      }
    }
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    return ctx;
  }

  // A short tone with a quick attack and decay.
  function tone(ac, { freq, type = "sine", start = 0, dur = 0.08, gain = 0.12, slide = 0 }) {
    const t0 = ac.currentTime + start;
    const osc = ac.createOscillator();
    const amp = ac.createGain();
    osc.type = type;
    osc.frequency.setValueAtTime(freq, t0);
    if (slide) osc.frequency.exponentialRampToValueAtTime(Math.max(40, freq + slide), t0 + dur);
    amp.gain.setValueAtTime(0.0001, t0);
    amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.006);
    amp.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
    osc.connect(amp).connect(ac.destination);
    osc.start(t0);
    osc.stop(t0 + dur + 0.02);
  }

  // A woody click: a burst of filtered noise.
  function knock(ac, { start = 0, freq = 1800, gain = 0.35, dur = 0.05 }) {
    const t0 = ac.currentTime + start;
    const length = Math.max(1, Math.floor(ac.sampleRate * dur));
    const buffer = ac.createBuffer(1, length, ac.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / length, 3);
    const src = ac.createBufferSource();
    src.buffer = buffer;
    const filter = ac.createBiquadFilter();
    filter.type = "bandpass";
    filter.frequency.value = freq;
    filter.Q.value = 3;
    const amp = ac.createGain();
    amp.gain.value = gain;
    src.connect(filter).connect(amp).connect(ac.destination);
    src.start(t0);
  }

  const SOUNDS = {
    play: (ac) => {
      knock(ac, { freq: 2200, gain: 0.5 });
      knock(ac, { start: 0.035, freq: 1400, gain: 0.25 });
    },
    draw: (ac) => knock(ac, { freq: 900, gain: 0.3, dur: 0.09 }),
    turn: (ac) => tone(ac, { freq: 660, dur: 0.14, gain: 0.08 }),
    score: (ac) => {
      tone(ac, { freq: 784, dur: 0.12, gain: 0.09, type: "triangle" });
      tone(ac, { freq: 1175, start: 0.09, dur: 0.2, gain: 0.09, type: "triangle" });
    },
    domino: (ac) => {
      [523, 659, 784, 1047].forEach((f, i) => tone(ac, { freq: f, start: i * 0.08, dur: 0.22, gain: 0.08, type: "triangle" }));
    },
    error: (ac) => tone(ac, { freq: 180, dur: 0.16, gain: 0.08, type: "square", slide: -60 }),
    pass: (ac) => tone(ac, { freq: 440, dur: 0.1, gain: 0.05, slide: -120 }),
    chat: (ac) => tone(ac, { freq: 988, dur: 0.06, gain: 0.04, type: "sine" }),
  };

  return {
    get enabled() {
      return enabled;
    },
    setEnabled(value) {
      enabled = !!value;
      keepChoice(KEY, enabled ? "on" : "off");
      if (enabled) this.play("turn");
    },
    /** Unlock audio on a user gesture (browsers start contexts suspended). */
    unlock() {
      unlocked = true;
      context();
    },
    play(kind) {
      const ac = context();
      const fn = SOUNDS[kind];
      if (!ac || !fn) return;
      try {
        fn(ac);
      } catch {
        /* never let a sound break the table */
      }
    },
  };
}
