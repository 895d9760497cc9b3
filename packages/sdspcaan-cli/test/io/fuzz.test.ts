/**
 * Mutated files (truncations, bit flips, overwritten lengths, inserted and deleted
 * bytes, zlib garbage) either parse to a matrix consistent with what the file
 * declares or fail with a DataFormatError naming the file and the problem: never
 * another exception, never a hang, never a large allocation.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { DataFormatError } from "sdspcaan";
import type { LoadedDataset } from "sdspcaan/formats";
import { CLASS, fixtureFile, MI, numeric, writeMatV5 } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { type LoadOptions, parseDataset, parseDatasetSync } from "#internal/io/load.js";

/** Fixed for reproducible runs; SDSPCAAN_FUZZ_SEED / SDSPCAAN_FUZZ_SCALE explore further by hand. */
const SEED = Number(process.env.SDSPCAAN_FUZZ_SEED ?? 42_024);
const SCALE = Number(process.env.SDSPCAAN_FUZZ_SCALE ?? 1);
const MAX_CASE_MS = 2000;
/** Readers may not allocate a buffer above this while fuzzing. */
const LIMITS: LoadOptions = { maxBytes: 16 * 1024 * 1024 };

type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "flip"; bits: [number, number][] }
  | { kind: "word"; at: number; value: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "delete"; at: number; count: number }
  | { kind: "garbage"; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("flip" as const),
    bits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), {
      minLength: 1,
      maxLength: 8,
    }),
  }),
  fc.record({
    kind: fc.constant("word" as const),
    at: fc.nat(),
    value: fc.constantFrom(
      0,
      1,
      7,
      8,
      0xff,
      0x10000,
      0x7fffffff,
      0x80000000,
      0xfffffff0,
      0xffffffff,
      2 ** 30,
    ),
  }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
  fc.record({
    kind: fc.constant("delete" as const),
    at: fc.nat(),
    count: fc.integer({ min: 1, max: 16 }),
  }),
  fc.record({
    kind: fc.constant("garbage" as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 4, maxLength: 64 }),
  }),
);

/** Applies a mutation; positions wrap around the buffer (`floor` keeps the header intact when > 0). */
function mutate(base: Uint8Array, m: Mutation, floor = 0): Uint8Array {
  const span = Math.max(1, base.length - floor);
  const pos = (at: number) => floor + (at % span);
  switch (m.kind) {
    case "truncate":
      return base.slice(0, m.at % (base.length + 1));
    case "flip": {
      const out = base.slice();
      for (const [at, bit] of m.bits) out[pos(at)] ^= 1 << bit;
      return out;
    }
    case "word": {
      const out = base.slice();
      const p = Math.min(pos(m.at), out.length - 4);
      if (p >= 0) new DataView(out.buffer).setUint32(p, m.value, (m.at & 1) === 0);
      return out;
    }
    case "insert": {
      const p = pos(m.at);
      const out = new Uint8Array(base.length + m.bytes.length);
      out.set(base.subarray(0, p), 0);
      out.set(m.bytes, p);
      out.set(base.subarray(p), p + m.bytes.length);
      return out;
    }
    case "delete": {
      const p = pos(m.at);
      const out = new Uint8Array(base.length - Math.min(m.count, base.length - p));
      out.set(base.subarray(0, p), 0);
      out.set(base.subarray(p + m.count), p);
      return out;
    }
    case "garbage": {
      const out = base.slice();
      const p = pos(m.at);
      out.set(m.bytes.subarray(0, Math.max(0, out.length - p)), p);
      return out;
    }
  }
}

let peakArrayBuffers = 0;

/** The property every case must satisfy; returns the outcome for the statistics. */
function checkOutcome(
  name: string,
  run: () => LoadedDataset,
  consistent: (ds: LoadedDataset) => void,
): "parsed" | "refused" {
  const t0 = performance.now();
  let outcome: "parsed" | "refused";
  try {
    const ds = run();
    expect(ds.X.data.length).toBe(ds.X.rows * ds.X.cols);
    expect(ds.y.length).toBe(ds.X.rows);
    for (const v of ds.X.data) expect(Number.isFinite(v)).toBe(true);
    consistent(ds);
    outcome = "parsed";
  } catch (err) {
    if (!(err instanceof DataFormatError)) throw err;
    expect(err.file).toBe(name);
    expect(err.problem.length).toBeGreaterThan(5);
    expect(err.message.startsWith(`${name}: `)).toBe(true);
    outcome = "refused";
  }
  expect(performance.now() - t0).toBeLessThan(MAX_CASE_MS);
  peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
  return outcome;
}

/** X's variable as listed must account for every value of X (plus a label column). */
function matConsistent(ds: LoadedDataset): void {
  const v = ds.info.variables?.find((u) => u.name === ds.info.xVar);
  expect(v).toBeDefined();
  const declared = (v?.dims ?? []).reduce((a, b) => a * b, 1);
  const cols = ds.info.labelColumn === undefined ? ds.X.cols : ds.X.cols + 1;
  expect(ds.X.rows * cols).toBe(declared);
}

const FEA = [
  [0, 17, 255, 3],
  [4, 5, 6, 7],
  [8, 9, 10, 11],
  [12, 13, 14, 200],
  [1, 2, 3, 4],
];
const GND = [[1], [1], [2], [2], [3]];

function matBase(compress: boolean, littleEndian: boolean): Uint8Array {
  return writeMatV5(
    [
      numeric("fea", FEA, CLASS.DOUBLE, MI.UINT8),
      numeric("gnd", GND, CLASS.DOUBLE, MI.UINT8),
      { name: "im_height", classId: CLASS.DOUBLE, dims: [1, 1], storage: MI.UINT8, values: [2] },
    ],
    { compress, littleEndian },
  );
}

function npyBase(fortran: boolean): Uint8Array {
  const header = `{'descr': '<f8', 'fortran_order': ${fortran ? "True" : "False"}, 'shape': (5, 5), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  const text = `${header}${" ".repeat(pad)}\n`;
  const out = new Uint8Array(10 + text.length + 25 * 8);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(out.buffer).setUint16(8, text.length, true);
  out.set(new TextEncoder().encode(text), 10);
  const dv = new DataView(out.buffer, 10 + text.length);
  const rows = FEA.map((r, i) => [...r, GND[i][0]]);
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++)
      dv.setFloat64(8 * (fortran ? j * 5 + i : i * 5 + j), rows[i][j], true);
  }
  return out;
}

const CSV = new TextEncoder().encode(
  "a,b,c,d,label\n0,17,255,3,x\n4,5,6,7,x\n8,9,10,11,y\n12,13,14,200,y\n1.5,2e3,-3,.5,z\n",
);

describe("fuzzing the readers (fixed seed)", () => {
  const cases: [string, Uint8Array, number, number, (ds: LoadedDataset) => void][] = [
    ["fuzz_u.mat", matBase(false, true), 90, 0, matConsistent],
    ["fuzz_z.mat", matBase(true, true), 90, 0, matConsistent],
    ["fuzz_zbe.mat", matBase(true, false), 40, 0, matConsistent],
    ["fuzz_c.npy", npyBase(false), 40, 0, (ds) => expect(ds.X.rows * (ds.X.cols + 1)).toBe(25)],
    ["fuzz_f.npy", npyBase(true), 30, 0, (ds) => expect(ds.X.rows * (ds.X.cols + 1)).toBe(25)],
    ["fuzz.csv", CSV, 60, 0, (ds) => expect(ds.X.cols).toBeLessThanOrEqual(5)],
  ];
  for (const [name, base, numRuns, floor, consistent] of cases) {
    it(`${name}: ${numRuns} mutations end in a consistent matrix or a DataFormatError`, () => {
      const seen = { parsed: 0, refused: 0 };
      // The unmutated file must parse, or the property would be vacuous.
      expect(checkOutcome(name, () => parseDatasetSync(base, name, LIMITS), consistent)).toBe(
        "parsed",
      );
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (ms) => {
          const bytes = ms.reduce((b, m) => mutate(b, m, floor), base);
          seen[checkOutcome(name, () => parseDatasetSync(bytes, name, LIMITS), consistent)]++;
        }),
        { numRuns: Math.round(numRuns * SCALE), seed: SEED },
      );
      if (process.env.SDSPCAAN_FUZZ_STATS) console.log(name, seen);
      expect(seen.refused).toBeGreaterThan(0);
      expect(peakArrayBuffers).toBeLessThan(512 * 1024 * 1024);
    });
  }

  it("rt_v73.mat (HDF5): 40 mutations end in a consistent matrix or a DataFormatError", async () => {
    const name = "fuzz_v73.mat";
    const base = new Uint8Array(readFileSync(fixtureFile("io/rt_v73.mat")));
    const seen = { parsed: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const bytes = mutate(base, m, 0);
        const t0 = performance.now();
        try {
          const ds = await parseDataset(bytes, name, { ...LIMITS, xVar: "fea", yVar: "gnd" });
          expect(ds.X.rows * ds.X.cols).toBe(ds.X.data.length);
          expect(ds.y.length).toBe(ds.X.rows);
          matConsistent(ds);
          seen.parsed++;
        } catch (err) {
          // A flipped variable name is reported as a missing variable: also a named, clean error.
          if (
            !(err instanceof DataFormatError) &&
            !(err instanceof Error && err.name === "ValidationError")
          ) {
            throw err;
          }
          expect((err as Error).message).toContain(name);
          seen.refused++;
        }
        expect(performance.now() - t0).toBeLessThan(MAX_CASE_MS * 2);
      }),
      { numRuns: Math.round(40 * SCALE), seed: SEED },
    );
    if (process.env.SDSPCAAN_FUZZ_STATS) console.log(name, seen);
    expect(seen.refused).toBeGreaterThan(0);
    const h5 = (await import("h5wasm")).default;
    const M = await h5.ready;
    // Every temporary file was removed from h5wasm's in-memory file system.
    expect(M.FS.readdir("/").filter((f: string) => f.startsWith("sdspcaan-"))).toEqual([]);
    // Corrupt chunk sizes may not grow the wasm heap (which never shrinks) without bound.
    expect(M.HEAPU8.length).toBeLessThan(512 * 1024 * 1024);
  });
});
