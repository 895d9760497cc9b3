import { describe, expect, it } from "vitest";
import {
  checkFitRecord,
  fitKey,
  fitRecordToLine,
  paramsKey,
  parseFitRecords,
} from "#internal/protocol/records.js";
import { rec } from "../helpers/makeRecord.js";

describe("fitKey", () => {
  it("depends on (dataset, repeat, method, k, params) only, not on key order", () => {
    const a = rec({ k: 20, params: { delta: 0.1, alpha: 1 }, valBCA: 0.5, testBCA: 0.4 });
    const b = rec({
      k: 20,
      params: { alpha: 1, delta: 0.1 },
      valBCA: 0.9,
      testBCA: 0.1,
      fitMs: 99,
    });
    expect(fitKey(a)).toBe(fitKey(b));
    expect(fitKey(a)).not.toBe(fitKey({ ...a, k: 30 }));
    expect(fitKey(a)).not.toBe(fitKey({ ...a, repeat: 1 }));
    expect(fitKey(a)).not.toBe(fitKey({ ...a, params: { alpha: 1, delta: 1 } }));
    expect(fitKey(a)).not.toBe(fitKey({ ...a, dataset: "E" }));
    expect(paramsKey({ delta: 0.1, alpha: 1 })).toBe("alpha=1,delta=0.1");
  });

  it("survives a JSON round trip of the record", () => {
    const a = rec({
      k: 20,
      params: { alpha: 0.1, beta: 100, delta: 0.01 },
      valBCA: 0.5,
      testBCA: 0.4,
    });
    const [back] = parseFitRecords(fitRecordToLine(a));
    expect(fitKey(back)).toBe(fitKey(a));
    expect(back).toEqual(a);
  });
});

describe("parseFitRecords", () => {
  const line = fitRecordToLine(rec({ k: 10, valBCA: 0.5, testBCA: 0.5 }));

  it("skips blank lines and drops a truncated last line unless strict", () => {
    const text = `${line}\n${line}{"dataset": "D", "rep`;
    expect(parseFitRecords(text)).toHaveLength(2);
    expect(() => parseFitRecords(text, { strict: true })).toThrow(/results line 4: not valid JSON/);
  });

  it("rejects a bad line in the middle, naming the line and field", () => {
    const bad = JSON.stringify({ ...JSON.parse(line), valBCA: 1.5 });
    expect(() => parseFitRecords(`${line}${bad}\n${line}`)).toThrow(
      /results line 2: "valBCA" must be a number in \[0, 1\]\. Got 1\.5/,
    );
    expect(() => parseFitRecords(`not json\n${line}`)).toThrow(/results line 1: not valid JSON/);
  });

  it("checks each field", () => {
    const base = JSON.parse(line);
    expect(() => checkFitRecord({ ...base, k: 0 })).toThrow(/"k" must be an integer in \[1, inf\)/);
    expect(() => checkFitRecord({ ...base, params: { gamma: 1 } })).toThrow(
      /unknown parameter 'gamma'/,
    );
    expect(() => checkFitRecord({ ...base, converged: "yes" })).toThrow(
      /"converged" must be true or false/,
    );
    expect(() => checkFitRecord({ ...base, preprocess: "zscore" })).toThrow(/'preprocess' option/);
    expect(() => checkFitRecord({ ...base, fitMs: -1 })).toThrow(/"fitMs"/);
  });
});
