/**
 * The method registry: descriptors by name. The CLI, the experiment runner, the
 * grids, the reports and `loadModel` look methods up here. The built-in methods are
 * registered below, in the order `methodNames()` lists them; another method is one
 * file with a descriptor (descriptor.ts) and one call to `registerMethod`.
 */
import {
  DataFormatError,
  ModelFormatError,
  SdspcaanError,
  ValidationError,
} from "../core/errors.js";
import { closestName, type OptionSchema } from "../core/options.js";
import { BASELINE_METHOD } from "./baseline.js";
import { checkMethodDeclaration, type MethodDescriptor } from "./descriptor.js";
import { checkModelJSON, type Estimator, restoredModel } from "./estimator.js";
import { JPCDA_METHOD } from "./jpcda.js";
import { LDA_METHOD } from "./lda.js";
import { LPP_METHOD } from "./lpp.js";
import {
  isBuiltInMethod,
  markBuiltInMethod,
  methodPlugin,
  setMethodPlugin,
} from "./methodPlugins.js";
import type { MethodName, MethodRegistry } from "./methodRegistry.js";
import { modelDocument } from "./modelFormat.js";
import { PCA_METHOD } from "./pca.js";
import { PCAN_METHOD } from "./pcan.js";
import { Pipeline } from "./pipeline.js";
import { isPipelineDocument } from "./pipelineFormat.js";
import { SDSPCA_METHOD } from "./sdspca.js";
import { SDSPCAAN_METHOD } from "./sdspcaan.js";
import { SDSPCA_LPP_METHOD } from "./sdspcaLpp.js";
import { SLNP_METHOD } from "./slnp.js";
import { SPCAN_METHOD } from "./spcan.js";

// biome-ignore lint/suspicious/noExplicitAny: descriptors of differently-typed options
type AnyDescriptor = MethodDescriptor<any>;

const REGISTRY = new Map<string, AnyDescriptor>();

/**
 * Adds a method. Its name must be new; from then on it is in `methodNames()`, the
 * grids, the reports and the CLI.
 */
export function registerMethod(descriptor: AnyDescriptor): void {
  checkMethodDeclaration(descriptor);
  const name = descriptor.name;
  if (REGISTRY.has(name)) {
    const plugin = methodPlugin(name);
    const whose = isBuiltInMethod(name)
      ? ": it is one of the built-in methods; give the new method a name of its own"
      : plugin !== null
        ? ` (by the plug-in ${plugin})`
        : "";
    throw new ValidationError(
      "descriptor",
      `A method named ${JSON.stringify(name)} is already registered${whose}.`,
    );
  }
  checkSharedOptionTypes(descriptor);
  REGISTRY.set(name, descriptor);
}

/**
 * An option name is one CLI flag for every method that has it (`--max-iter`), read as
 * the type the first registered method declares: a method declaring it with another
 * type could never be given a value by its flag.
 */
function checkSharedOptionTypes(descriptor: AnyDescriptor): void {
  for (const [option, spec] of Object.entries(descriptor.options as OptionSchema)) {
    for (const other of REGISTRY.values()) {
      const theirs = (other.options as OptionSchema)[option];
      if (theirs === undefined || theirs.type === spec.type) continue;
      throw new ValidationError(
        "descriptor",
        `Method ${descriptor.name}'s option '${option}' is of type "${spec.type}", but ${other.displayName}'s '${option}' is of type "${theirs.type}": an option name has one type across methods (one CLI flag sets it for all); rename the option or declare it of type "${theirs.type}".`,
      );
    }
  }
}

/** Removes a method registered with `registerMethod` (for tests and plug-ins). */
export function unregisterMethod(name: string): boolean {
  if (isBuiltInMethod(name)) return false;
  setMethodPlugin(name, null);
  return REGISTRY.delete(name);
}

export { isBuiltInMethod };

for (const d of [
  BASELINE_METHOD,
  PCA_METHOD,
  SDSPCA_METHOD,
  PCAN_METHOD,
  SPCAN_METHOD,
  SDSPCA_LPP_METHOD,
  SDSPCAAN_METHOD,
  JPCDA_METHOD,
  SLNP_METHOD,
  LDA_METHOD,
  LPP_METHOD,
]) {
  registerMethod(d);
  markBuiltInMethod(d.name);
}

/** The registered method names, in registration order (the built-ins first). */
export function methodNames(): string[] {
  return [...REGISTRY.keys()];
}

/** Every registered descriptor, in registration order. */
export function methodDescriptors(): AnyDescriptor[] {
  return [...REGISTRY.values()];
}

/**
 * The methods in the order of the paper's Table IV (its columns), then the ones the
 * paper does not compare, in registration order: the order of tables and runs.
 */
export function protocolOrder(): string[] {
  const all = methodDescriptors();
  const paper = all
    .filter((d) => d.paperColumn !== undefined)
    .sort((a, b) => (a.paperColumn as number) - (b.paperColumn as number));
  return [...paper, ...all.filter((d) => d.paperColumn === undefined)].map((d) => d.name);
}

/** Normalises a user-typed method name: case-insensitive, "_" accepted for "-". */
export function normalizeMethodName(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, "-");
}

/** The descriptor registered under `name` (normalised); throws listing the known names. */
export function methodDescriptor(name: string): AnyDescriptor {
  const d = REGISTRY.get(normalizeMethodName(String(name)));
  if (!d) {
    const known = methodNames();
    const close = closestName(normalizeMethodName(String(name)), known);
    throw new ValidationError(
      "method",
      `Unknown method ${JSON.stringify(name)}${close === null ? "" : ` (did you mean "${close}"?)`}. Known methods: ${known.join(", ")}.`,
    );
  }
  return d;
}

/**
 * A new, unfitted estimator of the named method with the given options. A name written
 * in the code must be one of {@link MethodRegistry} (a misspelt one does not compile)
 * and the options are that method's; a name only known at run time (a `string`) gives
 * an `Estimator`, checked then.
 */
export function createMethod<N extends MethodName>(
  name: N,
  options?: MethodRegistry[N]["options"],
): MethodRegistry[N]["model"];
export function createMethod<S extends string>(
  name: string extends S ? S : never,
  options?: Record<string, unknown>,
): Estimator;
export function createMethod(name: string, options: object = {}): Estimator {
  return methodDescriptor(name).create(options) as Estimator;
}

/**
 * Loads any saved model (JSON object or string): a {@link Pipeline} when its "format"
 * is "sdspcaan-pipeline", else a method's model, dispatching on its "method" field.
 * The model is exactly what was saved, or a ModelFormatError names the field at fault.
 */
export function loadModel(json: unknown): Estimator | Pipeline {
  checkModelArgument(json);
  const obj = modelDocument(json);
  return isPipelineDocument(obj) ? Pipeline.restore(obj, loadEstimator) : loadEstimator(obj);
}

/**
 * Refuses what no JSON text parses to, saying what it is: bytes read from a file (a
 * Buffer) would otherwise be taken for an object without a single field of a model.
 * JSON values that are not a model's object (null, a number, an array) are left to
 * the model's own checks, which say so as for a file.
 */
function checkModelArgument(json: unknown): void {
  const bytes = ArrayBuffer.isView(json) || json instanceof ArrayBuffer;
  const kind = typeof json;
  if (
    !bytes &&
    json !== undefined &&
    kind !== "function" &&
    kind !== "bigint" &&
    kind !== "symbol"
  ) {
    return;
  }
  throw new ValidationError(
    "json",
    `loadModel takes a saved model's JSON text (a string) or the object JSON.parse gives for it. Got ${givenModel(json)} instead${bytes ? ": decode the bytes first (new TextDecoder().decode(bytes))" : ""}.`,
  );
}

function givenModel(json: unknown): string {
  if (json === undefined) return "nothing";
  if (json instanceof ArrayBuffer) return `an ArrayBuffer of ${json.byteLength} bytes`;
  if (ArrayBuffer.isView(json)) return `a ${json.constructor.name} of ${json.byteLength} bytes`;
  return `a ${typeof json}`;
}

function loadEstimator(json: unknown): Estimator {
  const model = checkModelJSON(json);
  if (!REGISTRY.has(model.method) && model.plugin !== undefined) {
    throw new ValidationError(
      "method",
      `The model's method ${JSON.stringify(model.method)} comes from the plug-in ${model.plugin}, which is not loaded: load that plug-in first (the CLI's --plugin ${model.plugin}; in a program, import it before loadModel).`,
    );
  }
  if (!REGISTRY.has(model.method)) {
    throw new ModelFormatError(
      "method",
      `must be one of ${methodNames()
        .map((n) => JSON.stringify(n))
        .join(", ")}; got ${JSON.stringify(model.method)}`,
    );
  }
  // Made as the method's declaration makes it (its own class may take more than the
  // options); the saved options are validated and the fit restored as fromJSON does.
  const descriptor = methodDescriptor(model.method);
  return restoredModel(model, (options) => descriptor.create(options));
}

/**
 * Loads the model read from `file` (its JSON, parsed or not), refusing anything that
 * is not exactly a saved model with a DataFormatError that names the file, then the
 * field: "model.json: not a valid sdspcaan model: field 'preprocessing.method' must
 * be ...". The CLI's model files and the playground's both come through here.
 */
export function loadModelFile(json: unknown, file: string): Estimator | Pipeline {
  try {
    return loadModel(json);
  } catch (err) {
    if (err instanceof ModelFormatError) {
      throw new DataFormatError(
        file,
        `not a valid sdspcaan model: ${err.field === "" ? "" : `field '${err.field}' `}${err.problem}`,
      );
    }
    if (err instanceof SdspcaanError) throw new DataFormatError(file, err.message);
    throw err;
  }
}
