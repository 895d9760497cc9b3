/**
 * The raw DEFLATE decoder that unpacks the embedded WebAssembly kernels
 * (linalg/kernels/wasm/inflateRaw.ts) against node:zlib: every block type (stored,
 * fixed and dynamic Huffman, long back-references), random data, and corrupt or
 * truncated streams refused rather than decoded into wrong bytes.
 */
import { deflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inflateRaw } from "#internal/linalg/kernels/wasm/inflateRaw.js";

function roundTrip(bytes: Uint8Array, level: number): Uint8Array {
  const deflated = deflateRawSync(bytes, { level });
  return inflateRaw(new Uint8Array(deflated), bytes.length);
}

describe("inflateRaw", () => {
  it("decodes what node:zlib encodes, at every level (0 gives stored blocks)", () => {
    fc.assert(
      fc.property(
        // Runs of repeated symbols from a small alphabet give back-references;
        // arbitrary bytes give literals.
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }),
            fc
              .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 600 }))
              .map(([v, n]) => new Uint8Array(n).fill(v)),
          ),
          { maxLength: 12 },
        ),
        fc.constantFrom(0, 1, 6, 9),
        (parts, level) => {
          const total = parts.reduce((a, p) => a + p.length, 0);
          const bytes = new Uint8Array(total);
          let at = 0;
          for (const p of parts) {
            bytes.set(p, at);
            at += p.length;
          }
          expect(Buffer.from(roundTrip(bytes, level)).equals(Buffer.from(bytes))).toBe(true);
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });

  it("decodes long streams with distances up to 32 KB and several blocks", () => {
    const bytes = new Uint8Array(200_000);
    let x = 12345;
    for (let i = 0; i < bytes.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      // Text-like: a few symbols, repeated phrases far apart.
      bytes[i] = i > 40_000 && x % 3 === 0 ? bytes[i - 32_000] : 97 + ((x >>> 16) % 7);
    }
    for (const level of [1, 9]) {
      expect(Buffer.from(roundTrip(bytes, level)).equals(Buffer.from(bytes))).toBe(true);
    }
    expect(inflateRaw(new Uint8Array(deflateRawSync(new Uint8Array(0))), 0).length).toBe(0);
  });

  it("refuses truncated, corrupt and wrongly sized streams", () => {
    const bytes = new TextEncoder().encode("the kernels, the kernels, the kernels ".repeat(50));
    const deflated = new Uint8Array(deflateRawSync(bytes, { level: 9 }));
    expect(() => inflateRaw(deflated.subarray(0, deflated.length - 3), bytes.length)).toThrow(
      /corrupt stream/,
    );
    expect(() => inflateRaw(deflated, bytes.length - 1)).toThrow(/corrupt stream/);
    expect(() => inflateRaw(deflated, bytes.length + 1)).toThrow(/corrupt stream/);
    // Block type 3 does not exist.
    expect(() => inflateRaw(Uint8Array.of(0b111), 10)).toThrow(/block type 3/);
    // A stored block whose length and its complement disagree.
    expect(() => inflateRaw(Uint8Array.of(1, 5, 0, 0, 0, 1, 2, 3, 4, 5), 5)).toThrow(
      /stored length/,
    );
  });
});
