/** SHA-256 in TypeScript (checked against node:crypto) and canonical JSON for fingerprints. */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  fingerprintOf,
  isFingerprint,
  sha256Hex,
} from "#internal/protocol/fingerprint.js";

describe("sha256Hex", () => {
  it("agrees with node:crypto on the padding edge lengths and on random bytes", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255);
      expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"));
      }),
      { numRuns: 50 },
    );
  });
});

describe("canonicalJson and fingerprintOf", () => {
  it("do not depend on key order, and change with any value", () => {
    const a = { k: 10, params: { alpha: 1, delta: 0.1 }, options: { tol: 1e-3, maxIter: 30 } };
    const b = { options: { maxIter: 30, tol: 1e-3 }, params: { delta: 0.1, alpha: 1 }, k: 10 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe(
      '{"k":10,"options":{"maxIter":30,"tol":0.001},"params":{"alpha":1,"delta":0.1}}',
    );
    expect(fingerprintOf(a)).toBe(fingerprintOf(b));
    expect(isFingerprint(fingerprintOf(a))).toBe(true);
    expect(fingerprintOf({ ...a, k: 20 })).not.toBe(fingerprintOf(a));
    expect(fingerprintOf({ ...a, options: { tol: 1e-4, maxIter: 30 } })).not.toBe(fingerprintOf(a));
    // A number read back from JSON gives the same text.
    expect(canonicalJson(JSON.parse(JSON.stringify({ x: 0.1 + 0.2 })))).toBe(
      canonicalJson({ x: 0.1 + 0.2 }),
    );
    expect(canonicalJson({ v: Int32Array.from([3, 1]), u: undefined })).toBe('{"v":[3,1]}');
  });
});
