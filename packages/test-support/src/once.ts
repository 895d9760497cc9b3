/**
 * A value made by the first test that needs it, not while the file is collected: Stryker
 * (`npm run test:mutation`) counts code run outside a test, or in beforeAll, as covered by
 * every test, and would run them all for each of its mutants.
 */

/** `make`'s value, computed by the first call and returned by every later one. */
export function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: make() };
    return value.v;
  };
}
