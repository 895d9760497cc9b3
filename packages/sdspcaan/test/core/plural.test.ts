/** Counted nouns in the library's messages: no "(s)" left for the reader to resolve. */
import { describe, expect, it } from "vitest";
import { plural } from "#internal/core/plural.js";

describe("plural", () => {
  it("uses the singular for one only, and the given plural when there is one", () => {
    expect([0, 1, 2].map((n) => plural(n, "row"))).toEqual(["0 rows", "1 row", "2 rows"]);
    expect([1, 15].map((n) => plural(n, "class", "classes"))).toEqual(["1 class", "15 classes"]);
  });
});
