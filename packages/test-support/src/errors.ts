/** What a refused call threw or rejected with, failing the test when it did not. */

/** The error a function throws (fails the test when it does not throw). */
export function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error, but none was thrown");
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection, but the promise resolved");
}
