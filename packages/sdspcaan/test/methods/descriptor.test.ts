/**
 * A method's declaration is checked once, where it is made (defineMethod) or registered
 * (registerMethod, for one written without defineMethod): a mistake is a ValidationError
 * naming the method and the field or option, not a refusal of a user's value later or a
 * TypeError in the CLI. Every built-in declaration passes the same check.
 */
import { Estimator, Matrix, methodNames, type TrainingData, ValidationError } from "sdspcaan";
import {
  type CoreFitResult,
  defineMethod,
  type MethodDescriptor,
  registerMethod,
  unregisterMethod,
} from "sdspcaan/methods";
import { errorOf } from "sdspcaan-test-support";
import { afterEach, describe, expect, it } from "vitest";
import { checkMethodDeclaration } from "#internal/methods/descriptor.js";
import { methodDescriptors } from "#internal/methods/registry.js";

class RandProj extends Estimator<{ k: number }> {
  protected fitCore(data: TrainingData): CoreFitResult {
    return {
      components: Matrix.identity(data.d, this.params.k),
      iterations: 0,
      converged: true,
      stopReason: "closed-form",
      solver: "test",
    };
  }
}

/** A declaration of "randproj" with `options` (and `k`), built by hand as a plug-in's author would. */
function declaration(options: Record<string, unknown>): MethodDescriptor {
  const d = {
    name: "randproj",
    displayName: "RandProj",
    summary: "Random projection.",
    supervised: false,
    options: { k: { type: "integer", min: 1, default: 2, doc: "Components." }, ...options },
    create: (o?: object) =>
      new (class extends RandProj {
        constructor() {
          super(d, o);
        }
      })(),
  } as unknown as MethodDescriptor;
  return d;
}

function refused(fn: () => unknown): ValidationError {
  const err = errorOf(fn);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

afterEach(() => {
  unregisterMethod("randproj");
});

describe("defineMethod and registerMethod check the declaration", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "min above max",
      { n: { type: "integer", min: 10, max: 1, default: 3, doc: "N." } },
      "descriptor",
      "Method randproj's option 'n' has min 10 and max 1, a range no value is in.",
    ],
    [
      "a misspelt type",
      { n: { type: "integr", default: 0, doc: "N." } },
      "descriptor",
      'Method randproj\'s option \'n\' has the type "integr" (did you mean "integer"?); an option\'s type is one of "integer", "number", "enum", "boolean".',
    ],
    [
      "a default outside the option's own range",
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
  ];
  it.each(cases)(
    "%s: refused by defineMethod and by registerMethod",
    (_w, options, arg, message) => {
      for (const declare of [
        () => defineMethod(declaration(options)),
        () => registerMethod(declaration(options)),
      ]) {
        const err = refused(declare);
        expect(err.argument).toBe(arg);
        expect(err.message).toBe(message);
      }
      expect(methodNames()).not.toContain("randproj");
    },
  );

  it("refuses a built-in option name declared with another type, at registration", () => {
    const d = defineMethod(
      declaration({
        maxIter: { type: "enum", values: ["few", "many"], default: "few", doc: "T." },
      }),
    );
    const err = refused(() => registerMethod(d));
    expect(err.argument).toBe("descriptor");
    expect(err.message).toBe(
      "Method randproj's option 'maxIter' is of type \"enum\", but SDSPCA's 'maxIter' is of type \"integer\": an option name has one type across methods (one CLI flag sets it for all); rename the option or declare it of type \"integer\".",
    );
    expect(methodNames()).not.toContain("randproj");
  });

  it("refuses a bare { name } given to registerMethod, saying what is missing", () => {
    const err = refused(() => registerMethod({ name: "raw" } as unknown as MethodDescriptor));
    expect(err.argument).toBe("descriptor");
    expect(err.message).toBe(
      "Method raw's displayName must be a non-empty string. Got undefined instead.",
    );
    const noOptions = refused(() =>
      registerMethod({
        ...declaration({}),
        name: "raw",
        options: undefined,
      } as unknown as MethodDescriptor),
    );
    expect(noOptions.message).toBe(
      'Method raw\'s options must be an object of option declarations ({ k: { type: "integer", min: 1, default: 2, doc: "..." } }). Got undefined instead.',
    );
    expect(methodNames()).not.toContain("raw");
  });

  it("registers a declaration written without defineMethod once it is whole", () => {
    registerMethod(declaration({ scale: { type: "number", min: 0, default: 1, doc: "S." } }));
    expect(methodNames()).toContain("randproj");
  });

  it("passes every built-in declaration (a copy, so that the check runs again)", () => {
    const builtIn = methodDescriptors();
    expect(builtIn.length).toBeGreaterThanOrEqual(11);
    for (const d of builtIn) expect(() => checkMethodDeclaration({ ...d })).not.toThrow();
  });
});
