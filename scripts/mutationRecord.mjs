// The committed mutation record (stryker.incremental.json) in one canonical form.
//
// Stryker numbers tests and mutants in the order of each run, so a record rewritten
// after re-testing a handful of mutants renumbered nearly every id (a diff of hundreds
// of thousands of lines for the same results). Stryker matches recorded results by
// file, test name and location, and by mutant location, mutator and replacement; the
// ids only link a mutant to the tests that cover or kill it. So the record is written
// with the files, tests and mutants in a fixed order, mutants numbered in that order and
// tests named by a hash of their file and name: the same results give the same bytes,
// and a change shows as the lines it changes.

const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function position(location) {
  const { start, end } = location ?? {};
  return [start?.line ?? 0, start?.column ?? 0, end?.line ?? 0, end?.column ?? 0];
}

function compareNumbers(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short id that depends only on `text`. */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

function sortedEntries(object) {
  return Object.entries(object ?? {}).sort(([a], [b]) => byText(a, b));
}

/** The record `report` (Stryker's incremental JSON, parsed) in canonical form: a new object. */
export function canonicalRecord(report) {
  const testId = new Map();
  const testFiles = {};
  const taken = new Set();
  for (const [file, entry] of sortedEntries(report.testFiles)) {
    const tests = [...(entry.tests ?? [])].sort(
      (a, b) =>
        compareNumbers(position(a.location), position(b.location)) || byText(a.name, b.name),
    );
    testFiles[file] = {
      ...entry,
      tests: tests.map((t) => {
        // Named by what it is, not by where it stands, so that a test added before it
        // (or a new test file) leaves its id, and every mutant's list naming it, alone.
        const base = hash(`${file}\0${t.name}`);
        let id = base;
        for (let k = 2; taken.has(id); k++) id = `${base}-${k}`;
        taken.add(id);
        testId.set(t.id, id);
        return { ...t, id };
      }),
    };
  }
  const renamed = (ids) =>
    (ids ?? [])
      .map((id) => {
        const to = testId.get(id);
        if (to === undefined)
          throw new Error(`mutation record: a mutant names test ${id}, which no test file holds`);
        return to;
      })
      .sort(byText);
  const files = {};
  let nextMutant = 0;
  for (const [file, entry] of sortedEntries(report.files)) {
    const mutants = [...(entry.mutants ?? [])].sort(
      (a, b) =>
        compareNumbers(position(a.location), position(b.location)) ||
        byText(a.mutatorName, b.mutatorName) ||
        byText(a.replacement ?? "", b.replacement ?? ""),
    );
    files[file] = {
      ...entry,
      mutants: mutants.map((m) => ({
        ...m,
        id: String(nextMutant++),
        ...(m.coveredBy !== undefined ? { coveredBy: renamed(m.coveredBy) } : {}),
        ...(m.killedBy !== undefined ? { killedBy: renamed(m.killedBy) } : {}),
      })),
    };
  }
  return { ...report, files, testFiles };
}

/** The canonical record as the committed file's text. */
export function canonicalRecordText(report) {
  return `${JSON.stringify(canonicalRecord(report), null, 2)}\n`;
}
