/**
 * Seeded pseudo-random numbers. All randomness in sdspcaan flows through this
 * generator (never the platform's unseeded one), so the same seed and inputs give identical output
 * on every platform: the state is 32-bit integers and every operation is exact.
 *
 * Generator: xoshiro128** (Blackman & Vigna), seeded through SplitMix32 so that
 * nearby seeds give unrelated streams.
 */

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** FNV-1a over the UTF-16 code units of a string, as an unsigned 32-bit integer. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A 32-bit seed derived from several parts, e.g. deriveSeed(0, "ORL", 3) for
 * repeat 3 of ORL under base seed 0: each (dataset, repeat) is reproducible alone.
 */
export function deriveSeed(...parts: Array<number | string>): number {
  let h = 0x2545f491;
  for (const part of parts) {
    const v = typeof part === "number" ? hashString(`n:${part}`) : hashString(`s:${part}`);
    h = Math.imul(h ^ v, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/**
 * The generator itself: the state, the 32-bit integers and the uniform and normal
 * doubles drawn from them. The eigen-solvers draw their start vectors from it; `Random`
 * adds what the experiments need (integers in a range, permutations), so that a bundle
 * with only the solvers (a PCA fit) does not carry those.
 */
export class RandomStream {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | null = null;

  /** `seed` is any finite number; it is reduced to 32 bits. */
  constructor(seed = 0) {
    if (!Number.isFinite(seed)) {
      throw new RangeError(`seed must be a finite number. Got ${seed} instead.`);
    }
    const st = { s: (Math.trunc(seed) ^ Math.trunc(seed / 4294967296)) | 0 };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  uniform(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Standard normal deviate (Marsaglia's polar method). */
  normal(): number {
    if (this.spareNormal !== null) {
      const v = this.spareNormal;
      this.spareNormal = null;
      return v;
    }
    for (;;) {
      const u = 2 * this.uniform() - 1;
      const v = 2 * this.uniform() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) {
        const f = Math.sqrt((-2 * Math.log(s)) / s);
        this.spareNormal = v * f;
        return u * f;
      }
    }
  }
}

/**
 * Seeded pseudo-random numbers: xoshiro128** seeded through SplitMix32 (RandomStream),
 * with uniform integers in a range and permutations.
 */
export class Random extends RandomStream {
  /** Uniform integer in [0, n) without modulo bias. */
  integer(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 4294967296) {
      throw new RangeError(`n must be an integer in [1, 2^32]. Got ${n} instead.`);
    }
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const r = this.nextUint32();
      if (r < limit) return r % n;
    }
  }

  /** A uniformly random permutation of 0..n-1 (Fisher-Yates). */
  permutation(n: number): Int32Array {
    const p = new Int32Array(n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = this.integer(i + 1);
      const t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
