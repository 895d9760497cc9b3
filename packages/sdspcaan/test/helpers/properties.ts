/** Generated inputs for the library's property tests (fast-check). */
import fc from "fast-check";

/** A whole-number range [min, max] (inclusive) or any fast-check arbitrary. */
export type InputSpec = readonly [min: number, max: number] | fc.Arbitrary<unknown>;

/** The record `inputs` draws from a spec: a number for each range, the arbitrary's values else. */
export type Inputs<S extends Record<string, InputSpec>> = {
  [P in keyof S]: S[P] extends fc.Arbitrary<infer T> ? T : number;
};

/**
 * A property's inputs as one record named like its variables:
 * `inputs({ n: [1, 80], scale: fc.double({ min: 0, max: 1 }), seed: [0, 1e6] })` draws
 * `{ n, scale, seed }`, a pair `[min, max]` standing for the whole numbers between them.
 * Each input's range stands beside its name rather than in a list of arguments kept in
 * step, by position, with the property's parameters.
 */
export function inputs<S extends Record<string, InputSpec>>(spec: S): fc.Arbitrary<Inputs<S>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of Object.entries(spec)) {
    fields[name] = Array.isArray(s)
      ? fc.integer({ min: s[0], max: s[1] })
      : (s as fc.Arbitrary<unknown>);
  }
  return fc.record(fields) as fc.Arbitrary<Inputs<S>>;
}
