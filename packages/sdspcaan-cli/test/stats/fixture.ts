/** The SciPy reference values of scripts/fixtures/experiment_statistics.py. */
import { readFileSync } from "node:fs";
import { fixtureFile } from "sdspcaan-test-support";
import { expect } from "vitest";

export interface WilcoxonCase {
  name: string;
  x: number[];
  y: number[];
  method: "exact" | "asymptotic";
  nonZero: number;
  ties: boolean;
  rankSumPositive: number;
  rankSumNegative: number;
  statistic: number;
  pValue: number;
}

export interface FriedmanCase {
  name: string;
  scores: number[][];
  ranks: number[][];
  averageRanks: number[];
  chiSquare: number;
  pValue: number;
  imanDavenport: { statistic: number; df1: number; df2: number; pValue: number };
}

export interface StatisticsFixture {
  command: string;
  distributions: {
    normal: Array<{ z: number; cdf: number; sf: number }>;
    chi2: Array<{ x: number; df: number; cdf: number; sf: number }>;
    f: Array<{ f: number; df1: number; df2: number; cdf: number; sf: number }>;
    gamma: Array<{ a: number; x: number; p: number; q: number }>;
    beta: Array<{ a: number; b: number; x: number; i: number; complement: number }>;
    logGamma: Array<{ x: number; value: number }>;
  };
  wilcoxon: WilcoxonCase[];
  friedman: FriedmanCase[];
  nemenyi: Array<{ k: number; q: number }>;
  results: {
    methods: string[];
    datasets: string[];
    repeats: number;
    bca: Record<string, Record<string, number[]>>;
    wilcoxon: Record<
      string,
      Record<string, { pValue: number; nonZero: number; direction: "better" | "worse" | "same" }>
    >;
    friedmanDatasets: string[];
    ranks: Record<string, Record<string, number>>;
    averageRanks: Record<string, number>;
    chiSquare: number;
    pValue: number;
    imanDavenport: { statistic: number; df1: number; df2: number; pValue: number };
    q: number;
    criticalDifference: number;
    groups: string[][];
  };
}

export const statisticsFixture = JSON.parse(
  readFileSync(fixtureFile("experiment/statistics.json"), "utf8"),
) as StatisticsFixture;

/** |actual - expected| <= rel * |expected| + floor, with the case named on failure. */
export function expectClose(
  actual: number,
  expected: number,
  rel: number,
  what: string,
  floor = 0,
): void {
  expect(
    Math.abs(actual - expected),
    `${what}: got ${actual}, expected ${expected}`,
  ).toBeLessThanOrEqual(rel * Math.abs(expected) + floor);
}
