/**
 * Settings fingerprints of fits. Every line of `results.jsonl` carries the
 * fingerprint of what decided its result (data, split, preprocessing, method and
 * its full option set but for late options at their defaults, see plan.ts, k, grid
 * point); a resumed run reuses a line only when its
 * fingerprint equals the one the run now asks for. The hash is SHA-256 over a
 * canonical JSON text (object keys sorted), so it does not depend on key order or
 * on the platform, and it is written here in TypeScript to keep the core
 * browser-safe.
 */

/** Version of the fingerprint recipe: changing what goes into a fingerprint bumps it. */
export const FINGERPRINT_VERSION = 1;

/** Hex digits kept of the SHA-256 (64 bits: accidental collisions are out of reach). */
export const FINGERPRINT_LENGTH = 16;

const FINGERPRINT_PATTERN = /^[0-9a-f]{16}$/;

/** Whether `value` has the form of a fingerprint (16 lower-case hex digits). */
export function isFingerprint(value: unknown): value is string {
  return typeof value === "string" && FINGERPRINT_PATTERN.test(value);
}

/**
 * JSON with object keys sorted at every level, so that equal values give equal
 * texts whatever order their keys were set in. Undefined object members are left
 * out (as JSON.stringify does); numbers print in JavaScript's shortest round-trip
 * form, so a value read back from JSON gives the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (ArrayBuffer.isView(value)) {
    return canonicalJson(Array.from(value as unknown as ArrayLike<number>));
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}

/** SHA-256 (FIPS 180-4) of bytes, as 64 lower-case hex digits. */
export function sha256Hex(bytes: Uint8Array): string {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array((((bytes.length + 8) >> 6) + 1) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  // The length is a 64-bit big-endian count of bits; split it so it stays exact.
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  return Array.from(h, (v) => v.toString(16).padStart(8, "0")).join("");
}

/** The fingerprint (first 16 hex digits of SHA-256) of a value's canonical JSON. */
export function fingerprintOf(value: unknown): string {
  return sha256Hex(new TextEncoder().encode(canonicalJson(value))).slice(0, FINGERPRINT_LENGTH);
}

/*
 * Checksums of data sets and explicit splits, as settings.json records them: a
 * resumed run or a report must see the very data and splits of the run. They are
 * older than the fingerprints and kept as they are, so that existing settings.json
 * files stay valid.
 */

/** A stable 64-bit hash (hex) of bytes, for telling data sets and splits apart. */
function hashBytes(bytes: Uint8Array, h1 = 0x811c9dc5, h2 = 0x01000193): [number, number] {
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i], 0x5bd1e995) ^ (h2 >>> 15);
  }
  return [h1 >>> 0, h2 >>> 0];
}

function hex(pair: [number, number]): string {
  return pair.map((v) => v.toString(16).padStart(8, "0")).join("");
}

/** Checksum of a data set's X and labels. */
export function datasetChecksum(
  X: { readonly data: Float64Array },
  y: ArrayLike<string | number>,
): string {
  const view = new Uint8Array(X.data.buffer, X.data.byteOffset, X.data.byteLength);
  const [a, b] = hashBytes(view);
  const labels = new TextEncoder().encode(JSON.stringify(Array.from(y)));
  return hex(hashBytes(labels, a, b));
}

/** Checksum of explicit splits, as settings.json records it. */
export function splitsChecksum(
  splits: ReadonlyArray<{
    readonly train: Int32Array;
    readonly val: Int32Array;
    readonly test: Int32Array;
  }>,
): string {
  const text = JSON.stringify(
    splits.map((s) => [Array.from(s.train), Array.from(s.val), Array.from(s.test)]),
  );
  return hex(hashBytes(new TextEncoder().encode(text)));
}
