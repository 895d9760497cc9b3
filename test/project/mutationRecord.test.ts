/**
 * The committed mutation record is written in one canonical form
 * (scripts/mutationRecord.mjs), so that re-recording the same results gives the same
 * bytes: the order of files, tests and mutants, and the ids that link them, do not
 * depend on the order a run met them in, and a test keeps its id when others are added.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { canonicalRecord, canonicalRecordText } from "../../scripts/mutationRecord.mjs";

interface Test {
  id: string;
  name: string;
  location: { start: { line: number; column: number } };
}
interface Mutant {
  id: string;
  mutatorName: string;
  replacement: string;
  status: string;
  coveredBy: string[];
  killedBy: string[];
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface Record {
  files: { [file: string]: { mutants: Mutant[]; source: string } };
  testFiles: { [file: string]: { tests: Test[]; source: string } };
  projectRoot: string;
}

const loc = (line: number, column: number) => ({ start: { line, column } });

/** A small record; `order` permutes where each list starts, `ids` renames the ids. */
function record(shift: number, prefix: string): Record {
  const rotate = <T>(xs: T[]) => xs.map((_, i) => xs[(i + shift) % xs.length] as T);
  const t = (n: number) => `${prefix}${n}`;
  const tests = (file: string) =>
    file === "a.test.ts"
      ? [
          { id: t(1), name: "reads a", location: loc(10, 3) },
          { id: t(2), name: "refuses b", location: loc(4, 3) },
        ]
      : [{ id: t(3), name: "writes c", location: loc(7, 1) }];
  const mutant = (id: string, line: number, covered: string[], killed: string[]): Mutant => ({
    id,
    mutatorName: "ArithmeticOperator",
    replacement: `x${line}`,
    status: killed.length > 0 ? "Killed" : "Survived",
    coveredBy: covered,
    killedBy: killed,
    location: { start: { line, column: 1 }, end: { line, column: 9 } },
  });
  const testFiles = Object.fromEntries(
    rotate(["a.test.ts", "b.test.ts"]).map((f) => [f, { tests: rotate(tests(f)), source: f }]),
  );
  const files = Object.fromEntries(
    rotate([
      [
        "src/z.ts",
        {
          mutants: rotate([
            mutant(`${prefix}m1`, 30, [t(1), t(3)], [t(3)]),
            mutant(`${prefix}m2`, 2, [t(2)], []),
          ]),
          source: "z",
        },
      ],
      ["src/y.ts", { mutants: [mutant(`${prefix}m3`, 5, [t(3), t(2)], [t(2)])], source: "y" }],
    ] as const),
  );
  return { files, testFiles, projectRoot: "/somewhere" } as Record;
}

/** Each mutant's covering and killing tests by file and name: what the ids stand for. */
function links(r: Record) {
  const tests = new Map<string, string>();
  for (const [file, { tests: ts }] of Object.entries(r.testFiles)) {
    for (const t of ts) tests.set(t.id, `${file}: ${t.name}`);
  }
  const out: string[] = [];
  for (const [file, { mutants }] of Object.entries(r.files)) {
    for (const m of mutants) {
      const names = (ids: string[]) => ids.map((id) => tests.get(id)).sort();
      out.push(JSON.stringify([file, m.replacement, names(m.coveredBy), names(m.killedBy)]));
    }
  }
  return out.sort();
}

describe("the mutation record's canonical form", () => {
  it("is the same whatever order and ids a run gave, and keeps every link", () => {
    fc.assert(
      fc.property(fc.nat(5), fc.constantFrom("", "t", "9"), (shift, prefix) => {
        const given = record(shift, prefix);
        const canonical = canonicalRecordText(given);
        expect(canonical).toBe(canonicalRecordText(record(0, "")));
        expect(links(canonicalRecord(given) as Record)).toEqual(links(given));
      }),
    );
  });

  it("orders files by path, tests and mutants by place, numbers the mutants in that order", () => {
    const c = canonicalRecord(record(1, "q")) as Record;
    expect(Object.keys(c.testFiles)).toEqual(["a.test.ts", "b.test.ts"]);
    expect(c.testFiles["a.test.ts"]?.tests.map((t) => t.name)).toEqual(["refuses b", "reads a"]);
    expect(Object.keys(c.files)).toEqual(["src/y.ts", "src/z.ts"]);
    expect(c.files["src/z.ts"]?.mutants.map((m) => [m.id, m.replacement])).toEqual([
      ["1", "x2"],
      ["2", "x30"],
    ]);
    expect(c.projectRoot).toBe("/somewhere");
  });

  it("names a test by its file and name, so a test added before it leaves its id alone", () => {
    const ids = (r: Record) =>
      Object.fromEntries(
        Object.entries((canonicalRecord(r) as Record).testFiles).flatMap(([file, { tests }]) =>
          tests.map((t) => [`${file}: ${t.name}`, t.id]),
        ),
      );
    const before = ids(record(0, ""));
    for (const id of Object.values(before)) expect(id).toMatch(/^[0-9a-f]{8}$/);
    const grown = record(0, "");
    grown.testFiles["a.test.ts"]?.tests.unshift({ id: "new", name: "added", location: loc(1, 1) });
    grown.testFiles["0.test.ts"] = {
      tests: [{ id: "n0", name: "first", location: loc(1, 1) }],
      source: "",
    };
    const after = ids(grown);
    expect(Object.keys(after)).toHaveLength(Object.keys(before).length + 2);
    for (const [test, id] of Object.entries(before)) expect(after[test]).toBe(id);
  });

  it("keeps two tests of the same file and name apart", () => {
    const r = record(0, "");
    r.testFiles["b.test.ts"]?.tests.push({ id: "twin", name: "writes c", location: loc(20, 1) });
    const tests = (canonicalRecord(r) as Record).testFiles["b.test.ts"]?.tests ?? [];
    expect(tests.map((t) => t.id)).toEqual([tests[0]?.id, `${tests[0]?.id}-2`]);
  });

  it("refuses a mutant that names a test no test file holds", () => {
    const r = record(0, "");
    r.files["src/y.ts"]?.mutants[0]?.killedBy.push("404");
    expect(() => canonicalRecord(r)).toThrow(/names test 404, which no test file holds/);
  });

  it("is the form stryker.incremental.json is committed in (npm run test:mutation writes it so)", () => {
    const text = readFileSync(join(repoRoot, "stryker.incremental.json"), "utf8");
    expect(text === canonicalRecordText(JSON.parse(text))).toBe(true);
  });
});
