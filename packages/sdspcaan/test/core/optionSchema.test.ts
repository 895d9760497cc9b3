/**
 * checkOptionSchema: a declaration of options is refused where it is made, naming the
 * method and the option, when no value could be valid, its type is misspelt, its
 * default breaks its own range, or its name cannot be a flag.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { checkOptionSchema, type OptionSpec, optionProblem } from "#internal/core/options.js";
import { methodDescriptors } from "#internal/methods/registry.js";

const OWNER = "Method randproj";

function refusal(schema: unknown): ValidationError {
  try {
    checkOptionSchema(OWNER, schema);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error("the schema was accepted");
}

describe("checkOptionSchema", () => {
  it.each([
    [
      "a range no value is in",
      { n: { type: "integer", min: 10, max: 1, default: 3, doc: "N." } },
      "descriptor",
      "Method randproj's option 'n' has min 10 and max 1, a range no value is in.",
    ],
    [
      "an empty exclusive range",
      { t: { type: "number", min: 1, max: 1, exclusiveMin: true, default: 1, doc: "T." } },
      "descriptor",
      "Method randproj's option 't' has min 1 and max 1, a range no value is in.",
    ],
    [
      "a misspelt type",
      { n: { type: "integr", default: 0, doc: "N." } },
      "descriptor",
      'Method randproj\'s option \'n\' has the type "integr" (did you mean "integer"?); an option\'s type is one of "integer", "number", "enum", "boolean".',
    ],
    [
      "a default outside its own range",
      { n: { type: "integer", min: 0, default: -5, doc: "N." } },
      "descriptor",
      "Method randproj's option 'n' has the default -5, which its own declaration refuses: it must be an integer in [0, inf).",
    ],
    [
      "a name that cannot be a flag",
      { "bad name!": { type: "integer", default: 1, doc: "N." } },
      "descriptor",
      'Method randproj\'s option name "bad name!" is not one: an option\'s name is a letter, then letters and digits (camelCase, e.g. "maxIter"), as it becomes a flag of the CLI (--max-iter).',
    ],
    [
      "a misspelt field",
      { n: { type: "integer", mni: 1, default: 1, doc: "N." } },
      "descriptor",
      "Method randproj's option 'n' has a field 'mni' (did you mean 'min'?) that integer options do not have (type, doc, default, expert, since, min, max, fraction).",
    ],
    [
      "no doc",
      { n: { type: "integer", default: 1 } },
      "descriptor",
      "Method randproj's option 'n' needs a doc, a one-line description for --help and the errors; got undefined.",
    ],
    [
      "an enum default not among its values",
      { solver: { type: "enum", values: ["a", "b"], default: "c", doc: "S." } },
      "descriptor",
      'Method randproj\'s option \'solver\' has the default "c", which its own declaration refuses: it must be one of "a", "b".',
    ],
    [
      "enum values that are not strings",
      { solver: { type: "enum", values: [], default: "a", doc: "S." } },
      "descriptor",
      "Method randproj's option 'solver' has values []; they are a non-empty list of distinct strings.",
    ],
    [
      "a boolean default of null",
      { whiten: { type: "boolean", default: null, doc: "W." } },
      "descriptor",
      "Method randproj's option 'whiten' has the default null, which only number options take (\"chosen from the data\").",
    ],
    [
      "no options object",
      undefined,
      "descriptor",
      'Method randproj\'s options must be an object of option declarations ({ k: { type: "integer", min: 1, default: 2, doc: "..." } }). Got undefined instead.',
    ],
  ])("refuses %s", (_what, schema, argument, message) => {
    const err = refusal(schema);
    expect(err.argument).toBe(argument);
    expect(err.message).toBe(message);
  });

  it("accepts every built-in method's options", () => {
    for (const d of methodDescriptors()) {
      expect(() => checkOptionSchema(`Method ${d.name}`, d.options)).not.toThrow();
    }
  });

  it("accepts a number option exactly when some value is in its range and its default is one", () => {
    const bound = fc.option(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { nil: undefined });
    fc.assert(
      fc.property(
        bound,
        bound,
        fc.boolean(),
        fc.double({ noNaN: true }),
        (min, max, excl, dflt) => {
          const spec = {
            type: "number",
            doc: "X.",
            default: dflt,
            ...(min === undefined ? {} : { min }),
            ...(max === undefined ? {} : { max }),
            ...(excl ? { exclusiveMin: true } : {}),
          } as OptionSpec;
          const lo = min ?? Number.NEGATIVE_INFINITY;
          const hi = max ?? Number.POSITIVE_INFINITY;
          const valid = (excl ? lo < hi : lo <= hi) && optionProblem(spec, dflt) === null;
          let accepted = true;
          try {
            checkOptionSchema(OWNER, { x: spec });
          } catch {
            accepted = false;
          }
          expect(accepted).toBe(valid);
        },
      ),
    );
  });
});
