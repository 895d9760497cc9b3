/**
 * The method flags: --method, --k, --seed, --set, and one flag per option of the
 * registered methods, generated from their descriptors.
 */
import { type Command, Option } from "commander";
import { methodNames, ValidationError } from "sdspcaan";
import type { OptionSchema, OptionSpec } from "sdspcaan/methods";
import {
  methodDescriptor,
  methodDescriptors,
  normalizeMethodName,
  resolveOptions,
} from "sdspcaan/methods";
import { namingFlags } from "../../io/fileErrors.js";
import {
  DECIMAL,
  FRACTION,
  integerFlagError,
  integerOf,
  parseInteger,
  parseNumber,
} from "./flags.js";

/**
 * Method flags: --method, --k, --set, and one flag per option of the registered
 * methods (generated from their descriptors, so a new method's options get flags
 * without touching this file). Commander stores `--max-iter` as `maxIter`, the
 * option's own name.
 */
export interface MethodFlags {
  readonly method?: string;
  readonly k?: string;
  readonly seed?: string;
  readonly set?: readonly string[];
  readonly [option: string]: unknown;
}

/** `maxIter` -> `max-iter`. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** One generated flag: the option it sets, and which methods have it. */
interface MethodOptionFlag {
  readonly name: string;
  readonly flag: string;
  readonly spec: OptionSpec;
  readonly methods: string[];
}

/**
 * The flags of every option of the registered methods except k and seed (which
 * have flags of their own), in registration order, without the names the command
 * already uses for something else (those stay reachable through --set).
 */
function methodOptionFlags(cmd: Command): MethodOptionFlag[] {
  const taken = new Set(cmd.options.map((o) => o.long));
  const byName = new Map<string, MethodOptionFlag>();
  for (const d of methodDescriptors()) {
    for (const [name, spec] of Object.entries(d.options as OptionSchema)) {
      if (name === "k" || name === "seed") continue;
      const flag = `--${kebab(name)}`;
      if (taken.has(flag)) continue;
      const entry = byName.get(name) ?? { name, flag, spec, methods: [] };
      entry.methods.push(d.name);
      byName.set(name, entry);
    }
  }
  return [...byName.values()];
}

/** "<value>" placeholder and help text of a generated flag. */
function flagHelp(f: MethodOptionFlag): { usage: string; help: string } {
  const { spec } = f;
  const usage =
    spec.type === "enum"
      ? `<${spec.values.join("|")}>`
      : spec.type === "boolean"
        ? "<true|false>"
        : spec.type === "integer"
          ? "<n>"
          : "<x>";
  const all = f.methods.length === methodDescriptors().length;
  const who = all ? "" : ` [${f.methods.join(", ")}]`;
  return { usage, help: `${spec.doc}${who}` };
}

/** The method-option flags each command got from `addMethodOptions`. */
const GENERATED = new WeakMap<Command, MethodOptionFlag[]>();

/** --k's help: the methods whose k may be a fraction (their declarations say) are named. */
function kHelp(): string {
  const fraction = methodDescriptors().filter((d) => {
    const k = (d.options as OptionSchema).k;
    return k?.type === "integer" && k.fraction === true;
  });
  if (fraction.length === 0) return "subspace dimension k";
  const names = fraction.map((d) => d.name).join(", ");
  return `subspace dimension k (${names}: or a fraction in (0, 1), the share of the training variance to keep)`;
}

/**
 * `--k`: an integer, or for a method whose k takes one (PCA) a fraction in (0, 1), as
 * the option's declaration says; the method checks the range.
 */
function parseK(spec: OptionSpec | undefined, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const fraction = spec?.type === "integer" && spec.fraction === true;
  if (fraction && DECIMAL.test(raw.trim())) {
    const v = Number(raw);
    if (v > 0 && v < 1) return v;
  }
  const v = integerOf(raw);
  if (v === null || v < 1) {
    throw integerFlagError("--k", raw, 1, Number.MAX_SAFE_INTEGER, fraction ? FRACTION : undefined);
  }
  return v;
}

/** Adds --method, --k, a flag per method option (expert ones in their own help group), --seed, --set. */
export function addMethodOptions(cmd: Command, { seedHelp }: { seedHelp: string }): Command {
  cmd
    .requiredOption("--method <name>", `${methodNames().join(", ")} (case-insensitive, _ for -)`)
    .requiredOption("--k <k>", kHelp());
  const generated = methodOptionFlags(cmd);
  GENERATED.set(cmd, generated);
  for (const f of generated) {
    const { usage, help } = flagHelp(f);
    const option = new Option(`${f.flag} ${usage}`, help);
    if (f.spec.expert) option.helpGroup("Expert method options:");
    else option.helpGroup("Method options:");
    cmd.addOption(option);
  }
  return cmd
    .option("--seed <s>", seedHelp)
    .option("--set <name=value...>", "any option of the method by name, e.g. --set weight=binary");
}

function throwError(err: Error): never {
  throw err;
}

function parseSetValue(raw: string): unknown {
  const v = raw.trim();
  if (v === "true") return true;
  if (v === "false") return false;
  if (v === "null") return null;
  if (v === "Infinity" || v === "inf") return Number.POSITIVE_INFINITY;
  if (DECIMAL.test(v)) return Number(v);
  return v;
}

/** A generated flag's value as its option's type (the method then checks its range). */
function parseFlagValue(flag: string, spec: OptionSpec, raw: string): unknown {
  switch (spec.type) {
    case "integer":
      if (raw.trim() === "null" && spec.default === null) return null;
      // Not an integer: refused with the option's own range; one out of it, by the method.
      return (
        integerOf(raw) ??
        throwError(
          integerFlagError(
            flag,
            raw,
            spec.min ?? Number.MIN_SAFE_INTEGER,
            spec.max ?? Number.MAX_SAFE_INTEGER,
            spec.fraction === true ? FRACTION : undefined,
          ),
        )
      );
    case "number":
      return raw.trim() === "null" && spec.default === null ? null : parseNumber(flag, raw);
    case "boolean":
      if (raw === "true" || raw === "false") return raw === "true";
      throw new ValidationError(
        flag.replace(/^--/, ""),
        `The '${flag}' option must be true or false. Got ${JSON.stringify(raw)} instead.`,
      );
    case "enum":
      return raw;
  }
}

/** The method's name (normalised, registered) and its constructor options from the flags. */
export function methodFromFlags(
  flags: MethodFlags,
  cmd?: Command,
): {
  method: string;
  options: Record<string, unknown>;
} {
  if (flags.method === undefined) {
    throw new ValidationError("method", "The '--method' option is required.");
  }
  const method = normalizeMethodName(flags.method);
  const schema = methodDescriptor(flags.method).options as OptionSchema;
  const options: Record<string, unknown> = { k: parseK(schema.k, flags.k) };
  const given = new Map<string, string>(); // option name -> the flag that gave it
  given.set("k", "--k");
  for (const [name, spec] of Object.entries(schema)) {
    if (name === "k" || name === "seed") continue;
    const raw = flags[name];
    if (typeof raw !== "string") continue;
    const flag = `--${kebab(name)}`;
    options[name] = parseFlagValue(flag, spec, raw);
    given.set(name, flag);
  }
  // A flag of an option this method does not have is an error, not silently ignored.
  for (const f of (cmd && GENERATED.get(cmd)) || []) {
    if (typeof flags[f.name] === "string" && !Object.hasOwn(schema, f.name)) {
      throw new ValidationError(
        f.name,
        `${methodDescriptor(method).displayName} has no option '${f.name}' (${f.flag} is an option of ${f.methods.join(", ")}). Valid options: ${Object.keys(schema).join(", ")}.`,
      );
    }
  }
  // The seed also seeds splits in `evaluate`; deterministic methods have no seed option.
  const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1);
  if (seed !== undefined && Object.hasOwn(schema, "seed")) {
    options.seed = seed;
    given.set("seed", "--seed");
  }
  for (const item of flags.set ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      throw new ValidationError(
        "set",
        `--set takes name=value. Got ${JSON.stringify(item)} instead.`,
      );
    }
    const name = item.slice(0, eq).trim();
    const own = given.get(name) ?? (name === "k" ? "--k" : undefined);
    if (own !== undefined) {
      // A value given twice is ambiguous: refuse rather than let one silently win.
      throw new ValidationError(
        "set",
        `Give '${name}' with ${own}, not with --set (got --set ${item}).`,
      );
    }
    options[name] = parseSetValue(item.slice(eq + 1));
    given.set(name, "--set");
  }
  // The ranges are the method's own; checked here, a value out of range is refused
  // naming the flag that gave it ("... Got -1 instead (--alpha).").
  try {
    resolveOptions(methodDescriptor(method).displayName, schema, options);
  } catch (err) {
    throw namingFlags(err, Object.fromEntries(given));
  }
  return { method, options };
}
