/**
 * Method names -> classes. The CLI, the experiment runner and `loadModel` go through
 * here, so a new method is one file plus one line below.
 */
import { ModelFormatError, ValidationError } from "../core/errors.js";
import { Baseline } from "./baseline.js";
import { checkModelJSON, type Estimator } from "./estimator.js";
import { JPCDA } from "./jpcda.js";
import { LDA } from "./lda.js";
import { LPP } from "./lpp.js";
import { PCA } from "./pca.js";
import { PCAN } from "./pcan.js";
import { SDSPCA } from "./sdspca.js";
import { SDSPCAAN } from "./sdspcaan.js";
import { SDSPCALPP } from "./sdspcaLpp.js";
import { SLNP } from "./slnp.js";
import { SPCAN } from "./spcan.js";

// biome-ignore lint/suspicious/noExplicitAny: constructors of differently-typed estimators
type EstimatorClass = (new (options?: any) => Estimator<any>) & { schema: object };

const REGISTRY: ReadonlyMap<string, EstimatorClass> = new Map<string, EstimatorClass>([
  ["baseline", Baseline],
  ["pca", PCA],
  ["sdspca", SDSPCA],
  ["pcan", PCAN],
  ["spcan", SPCAN],
  ["sdspca-lpp", SDSPCALPP],
  ["sdspcaan", SDSPCAAN],
  ["jpcda", JPCDA],
  ["slnp", SLNP],
  ["lda", LDA],
  ["lpp", LPP],
]);

/** The registered method names, in the paper's order, then the extras. */
export function methodNames(): string[] {
  return [...REGISTRY.keys()];
}

/** Normalises a user-typed method name: case-insensitive, "_" accepted for "-". */
export function normalizeMethodName(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, "-");
}

/** The class registered under `name` (normalised). */
export function methodClass(name: string): EstimatorClass {
  const key = normalizeMethodName(String(name));
  const cls = REGISTRY.get(key);
  if (!cls) {
    throw new ValidationError(
      "method",
      `Unknown method ${JSON.stringify(name)}. Known methods: ${methodNames().join(", ")}.`,
    );
  }
  return cls;
}

/** A new, unfitted estimator of the named method with the given options. */
export function createMethod(name: string, options: Record<string, unknown> = {}): Estimator {
  const Cls = methodClass(name);
  return new Cls(options);
}

/**
 * Loads any saved model (JSON object or string), dispatching on its "method" field.
 * The model is exactly what was saved, or a ModelFormatError names the field at fault.
 */
export function loadModel(json: unknown): Estimator {
  const model = checkModelJSON(json);
  const cls = REGISTRY.get(model.method);
  if (!cls) {
    throw new ModelFormatError(
      "method",
      `must be one of ${methodNames()
        .map((n) => JSON.stringify(n))
        .join(", ")}; got ${JSON.stringify(model.method)}`,
    );
  }
  return (cls as unknown as { fromJSON(j: unknown): Estimator }).fromJSON(model);
}
