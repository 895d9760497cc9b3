import type { FitRecord } from "#internal/protocol/records.js";
import { rec } from "./makeRecord.js";

/**
 * A demo-like run where the BCA depends on the data set and the method but not on k:
 * Musk1 has k = 10..50, Big 20..40, Yale 20, 30 and ORL 40, 50; SLNP has results on
 * `slnpOn` only. A curve that compares like with like must then be flat.
 */
export function flatInK(slnpOn: readonly string[], musk1Ks = [10, 20, 30, 40, 50]): FitRecord[] {
  const ks: Record<string, number[]> = {
    Musk1: musk1Ks,
    Big: [20, 30, 40],
    Yale: [20, 30],
    ORL: [40, 50],
  };
  const base: Record<string, number> = { Musk1: 0.9, Big: 0.6, Yale: 0.3, ORL: 0.5 };
  const lift: Record<string, number> = { sdspcaan: 0.05, pca: 0, slnp: 0.02 };
  const out: FitRecord[] = [];
  for (const [dataset, list] of Object.entries(ks)) {
    for (const method of ["sdspcaan", "pca", "slnp"]) {
      if (method === "slnp" && !slnpOn.includes(dataset)) continue;
      for (const k of list) {
        for (const repeat of [0, 1]) {
          const testBCA = base[dataset] + lift[method];
          out.push(rec({ dataset, method, repeat, k, valBCA: 0.5, testBCA }));
        }
      }
    }
  }
  return out;
}
