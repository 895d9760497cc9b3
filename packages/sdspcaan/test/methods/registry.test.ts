/** loadModel's argument: a model's JSON text or its parsed object, and nothing else. */
import { smallRows } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ModelFormatError, ValidationError } from "#internal/core/errors.js";
import { PCA } from "#internal/methods/pca.js";
import { loadModel } from "#internal/methods/registry.js";

describe("loadModel", () => {
  const text = JSON.stringify(new PCA({ k: 2 }).fit(smallRows().X).toJSON());
  const takes =
    "loadModel takes a saved model's JSON text (a string) or the object JSON.parse gives for it.";

  it("says what bytes are and how to decode them, instead of a missing field", () => {
    const bytes = new TextEncoder().encode(text);
    for (const [given, shown] of [
      [Buffer.from(text), `a Buffer of ${bytes.length} bytes`],
      [bytes, `a Uint8Array of ${bytes.length} bytes`],
      [bytes.buffer, `an ArrayBuffer of ${bytes.length} bytes`],
    ] as const) {
      const err = (() => {
        try {
          loadModel(given);
        } catch (e) {
          return e as ValidationError;
        }
      })();
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).not.toBeInstanceOf(ModelFormatError);
      expect(err?.argument).toBe("json");
      expect(err?.message).toBe(
        `${takes} Got ${shown} instead: decode the bytes first (new TextDecoder().decode(bytes)).`,
      );
    }
    expect(loadModel(new TextDecoder().decode(bytes)).method).toBe("pca");
  });

  it("names what no JSON text parses to", () => {
    expect(() => loadModel(undefined)).toThrow(`${takes} Got nothing instead.`);
    expect(() => loadModel(() => text)).toThrow(`${takes} Got a function instead.`);
    expect(() => loadModel(1n)).toThrow(`${takes} Got a bigint instead.`);
  });

  it("leaves JSON values that are not a model to the model's checks", () => {
    expect(() => loadModel(3)).toThrow(new ModelFormatError("", "expected a JSON object; got 3"));
    expect(() => loadModel(null)).toThrow(
      new ModelFormatError("", "expected a JSON object; got null"),
    );
    expect(loadModel(JSON.parse(text)).method).toBe("pca");
  });
});
