/**
 * The options reference of the registered methods as Markdown, generated from their
 * descriptors (docs/method-options.md is this text; scripts/docs/methodOptions.ts
 * writes it). Browser-safe: no file access here.
 */
import type { OptionSpec } from "../core/options.js";
import { GRID_PRESETS } from "./descriptor.js";
import { methodDescriptors } from "./registry.js";

/** An option's type and range as the reference writes them ("integer in [1, inf)"). */
export function typeText(spec: OptionSpec): string {
  switch (spec.type) {
    case "integer":
    case "number": {
      const lo = spec.min === undefined ? "-inf" : String(spec.min);
      const hi = spec.max === undefined ? "inf" : String(spec.max);
      const left = spec.type === "number" && spec.exclusiveMin ? "(" : "[";
      const right = spec.max === undefined ? ")" : "]";
      const fraction = spec.type === "integer" && spec.fraction ? " or fraction in (0, 1)" : "";
      return `${spec.type} in ${left}${lo}, ${hi}${right}${fraction}`;
    }
    case "enum":
      return spec.values.map((v) => `\`${v}\``).join(" / ");
    case "boolean":
      return "boolean";
  }
}

/** An option's default as the reference writes it ("from the data", "`10`", "2^-52"). */
export function defaultText(spec: OptionSpec): string {
  if (spec.default === null) return "from the data";
  if (typeof spec.default === "number" && spec.default !== 0) {
    const e = Math.log2(Math.abs(spec.default));
    if (Number.isInteger(e) && Math.abs(e) >= 20) return `2^${e}`;
  }
  return `\`${String(spec.default)}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

/** The whole reference, one section per method in registration order. */
export function methodOptionsMarkdown(): string {
  const out: string[] = [
    "# Method options",
    "",
    "Generated from the method declarations (`npm run docs`); do not edit by hand. Each",
    "option is a constructor option of the method's class (`new SDSPCAAN({ k: 20 })`), a",
    "key of `createMethod(name, options)`, and a CLI flag (`--max-iter` for `maxIter`).",
    "Options marked *expert* are for special needs (stop rules, solvers, caps).",
    "",
  ];
  for (const d of methodDescriptors()) {
    out.push(`## ${d.displayName} (\`${d.name}\`)`, "", d.summary, "");
    out.push(d.supervised ? "Needs labels." : "Needs no labels.", "");
    out.push("| option | type | default | description |", "| --- | --- | --- | --- |");
    for (const [name, spec] of Object.entries(d.options) as Array<[string, OptionSpec]>) {
      const doc = `${spec.expert ? "*expert* " : ""}${spec.doc}`;
      out.push(`| \`${name}\` | ${cell(typeText(spec))} | ${defaultText(spec)} | ${cell(doc)} |`);
    }
    const tuned = Object.entries(d.tuned ?? {});
    if (tuned.length > 0) {
      out.push("", "Tuned by the protocol's grids besides k:", "");
      out.push(
        `| option | ${GRID_PRESETS.join(" | ")} |`,
        `| --- |${" --- |".repeat(GRID_PRESETS.length)}`,
      );
      for (const [name, values] of tuned) {
        if (values === undefined) continue;
        out.push(`| \`${name}\` | ${GRID_PRESETS.map((p) => values[p].join(", ")).join(" | ")} |`);
      }
    }
    if (d.paperColumn !== undefined)
      out.push("", `Column ${d.paperColumn + 1} of the paper's Table IV.`);
    out.push("");
  }
  return `${out.join("\n")}`;
}
