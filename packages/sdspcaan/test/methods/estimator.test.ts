/** What a fit says about k when the caller left it to its default. */
import { errorOf, smallRows } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { LPP } from "#internal/methods/lpp.js";
import { PCA } from "#internal/methods/pca.js";
import { SDSPCA } from "#internal/methods/sdspca.js";

describe("a default k the data does not allow", () => {
  // 24 samples of 4 features: k is at most 4, and the default is 10.
  const { X, y } = smallRows();

  it("says it is the default and to give k", () => {
    const err = errorOf(() => new PCA().fit(X));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("k");
    expect(err.message).toBe(
      "The 'k' parameter of PCA must be an integer in [1, 4] (at most min(n, d) = 4). Got 10 (the default; give k) instead.",
    );
    expect(errorOf(() => new LPP({ neighbours: 3 }).fit(X)).message).toBe(
      "The 'k' parameter of LPP must be an integer in [1, 4] (at most min(n, d) = 4). Got 10 (the default; give k) instead.",
    );
    expect(errorOf(() => new SDSPCA().fit(X, y)).message).toMatch(
      /^The 'k' parameter of SDSPCA must be an integer in \[1, 4\] .*\. Got 10 \(the default; give k\) instead\.$/,
    );
  });

  it("is quoted as given when the caller gave it", () => {
    expect(errorOf(() => new PCA({ k: 10 }).fit(X)).message).toBe(
      "The 'k' parameter of PCA must be an integer in [1, 4] (at most min(n, d) = 4). Got 10 instead.",
    );
  });

  it("keeps the default of 10 where the data allows it", () => {
    const wide = X.map((r) => [...r, ...r, ...r]);
    expect(new PCA().fit(wide).nComponents).toBe(10);
  });
});
