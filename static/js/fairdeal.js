// Dominologist: check a deal in the browser (docs/fair-deals.md), with Web Crypto's SHA-256 only.
//
//   commitmentOf(seedHex)                         SHA-256 of the seed's 32 bytes, as hex
//   shuffledSet(seedHex, washes, maxPip)          the deal order: the whole set, shuffled
//   verifyDeal({seed, commitment, contributions, maxPip, players, deal, sent})
//                                                 every check, and whether all passed
//
// The same procedure as tables/fairdeal.py, written again from the document:
//   key    = SHA-256("dominologist-deal-v1|" + seed + "|" + "0=<hex>,2=<hex>")  (washes by seat)
//   block  = SHA-256(key + k as 8 bytes, big-endian), k = 0, 1, 2, ...
//   for i = n-1 down to 1: j = (first 8 bytes of block, big-endian) mod (i + 1); swap i and j
// Runs in browsers and in Node 20 (globalThis.crypto.subtle). No dependencies.

const DOMAIN = "dominologist-deal-v1";
const HEX64 = /^[0-9a-f]{64}$/;

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) throw new Error("Web Crypto is not available here (it needs https or localhost).");
  return c.subtle;
}

export function hexToBytes(hex) {
  const text = String(hex).trim().toLowerCase();
  if (text.length % 2 || /[^0-9a-f]/.test(text)) throw new Error(`not hexadecimal: ${text.slice(0, 16)}…`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256(bytes) {
  return new Uint8Array(await subtle().digest("SHA-256", bytes));
}

/** SHA-256 of the seed's bytes (not of its hex text), as 64 hex characters. */
export async function commitmentOf(seedHex) {
  return bytesToHex(await sha256(hexToBytes(seedHex)));
}

/** The whole set in canonical order: 0-0, 1-0, 1-1, 2-0, 2-1, 2-2, ... (higher half first). */
export function fullSet(maxPip) {
  const bones = [];
  for (let hi = 0; hi <= maxPip; hi++) for (let lo = 0; lo <= hi; lo++) bones.push(`${hi}-${lo}`);
  return bones;
}

/** "0=<hex>,2=<hex>": the washes in seat order. */
export function washText(contributions) {
  return Object.keys(contributions || {})
    .map(Number)
    .sort((a, b) => a - b)
    .map((seat) => `${seat}=${String(contributions[seat]).trim().toLowerCase()}`)
    .join(",");
}

export async function dealKey(seedHex, contributions) {
  const text = `${DOMAIN}|${String(seedHex).trim().toLowerCase()}|${washText(contributions)}`;
  return sha256(new TextEncoder().encode(text));
}

export async function shuffledSet(seedHex, contributions, maxPip) {
  const key = await dealKey(seedHex, contributions);
  const bones = fullSet(maxPip);
  const input = new Uint8Array(key.length + 8);
  input.set(key, 0);
  const counter = new DataView(input.buffer, key.length, 8);
  let k = 0;
  for (let i = bones.length - 1; i >= 1; i--, k++) {
    counter.setBigUint64(0, BigInt(k), false);
    const block = await sha256(input);
    const word = new DataView(block.buffer, block.byteOffset, 8).getBigUint64(0, false);
    const j = Number(word % BigInt(i + 1));
    [bones[i], bones[j]] = [bones[j], bones[i]];
  }
  return bones;
}

function sameBones(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Every check of one hand. data: seed, commitment, contributions ({seat: hex}), maxPip, players,
 * deal (bones each), sent ({seat: [bones]}: what each browser was dealt), replayed ([[bones]]:
 * the server's replay, used for a seat whose message was not kept).
 * Returns {ok, commitment: {ok, computed}, order, hands, yard, seats: [{seat, ok, recomputed,
 * expected, source}], error}.
 */
export async function verifyDeal(data) {
  const out = { ok: false, commitment: null, order: null, hands: [], yard: [], seats: [], error: null };
  try {
    const seed = String(data.seed || "").trim().toLowerCase();
    if (!HEX64.test(seed)) throw new Error("the seed is 64 hexadecimal characters");
    for (const [seat, value] of Object.entries(data.contributions || {})) {
      if (!HEX64.test(String(value).trim().toLowerCase())) throw new Error(`the wash of seat ${seat} is 64 hexadecimal characters`);
    }
    const computed = await commitmentOf(seed);
    out.commitment = { ok: computed === String(data.commitment).trim().toLowerCase(), computed };
    const order = await shuffledSet(seed, data.contributions || {}, data.maxPip);
    out.order = order;
    const each = data.deal;
    for (let seat = 0; seat < data.players; seat++) out.hands.push(order.slice(seat * each, (seat + 1) * each));
    out.yard = order.slice(data.players * each);
    const sent = data.sent || {};
    for (let seat = 0; seat < data.players; seat++) {
      const fromTable = sent[seat] ?? sent[String(seat)];
      const expected = fromTable ?? (data.replayed ? data.replayed[seat] : null);
      out.seats.push({
        seat,
        recomputed: out.hands[seat],
        expected: expected ?? null,
        source: fromTable ? "sent" : expected ? "replayed" : "none",
        ok: sameBones(out.hands[seat], expected),
      });
    }
    out.ok = out.commitment.ok && out.seats.every((s) => s.ok);
  } catch (err) {
    out.error = String(err && err.message ? err.message : err);
    out.ok = false;
  }
  return out;
}
