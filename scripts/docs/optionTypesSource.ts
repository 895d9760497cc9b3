/**
 * The texts of packages/sdspcaan/src/methods/optionTypes.ts and methodRegistry.ts,
 * generated from the registered methods' declarations (see scripts/docs/optionTypes.ts,
 * which writes them, and test/project/docs.test.ts, which checks the committed files are
 * these texts). The option types import nothing, since every method file imports its
 * own from them; the registry, which names each method's class, imports the classes, so
 * no import runs in a circle.
 */
import type { OptionSpec } from "../../packages/sdspcaan/src/core/options.js";
import { defaultText, typeText } from "../../packages/sdspcaan/src/methods/optionDocs.js";
import { methodDescriptors } from "../../packages/sdspcaan/src/methods/registry.js";

/** The TypeScript type of a spec's values (as OptionValue in core/options.ts derives it). */
function valueType(spec: OptionSpec): string {
  switch (spec.type) {
    case "integer":
    case "number":
      return spec.default === null ? "number | null" : "number";
    case "enum":
      return spec.values.map((v) => JSON.stringify(v)).join(" | ");
    case "boolean":
      return "boolean";
  }
}

/** Words of `text` in lines of at most `width` characters after `prefix`. */
function wrapped(text: string, prefix: string, width = 92): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && prefix.length + line.length + 1 + word.length > width) {
      lines.push(`${prefix}${line}`);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(`${prefix}${line}`);
  return lines;
}

function docComment(paragraphs: string[], indent: string): string[] {
  const out = [`${indent}/**`];
  paragraphs.forEach((p, i) => {
    if (i > 0) out.push(`${indent} *`);
    out.push(...wrapped(p, `${indent} * `));
  });
  out.push(`${indent} */`);
  return out;
}

/** The two generated files' texts, by file name under packages/sdspcaan/src/methods/. */
export function optionTypesSource(): { "optionTypes.ts": string; "methodRegistry.ts": string } {
  const out: string[] = [
    "/**",
    " * The built-in methods' options as TypeScript types, generated from their declarations",
    " * (the option specs in each method's file) by scripts/docs/optionTypes.ts (`npm run",
    " * docs`); do not edit by hand. `XOptions` is what the constructor and",
    " * `createMethod(name, options)` take (every field optional: its default otherwise);",
    " * `ResolvedXOptions` is a model's `params`, every default filled in.",
    " */",
  ];
  const types: string[] = [];
  const classes: string[] = [];
  const registry: string[] = [];
  const written: Array<{ type: string; options: Record<string, OptionSpec> }> = [];
  for (const d of methodDescriptors()) {
    const className = d.create({}).constructor.name;
    classes.push(className);
    const type = `${className}Options`;
    const options = d.options as Record<string, OptionSpec>;
    const base = widestIncluded(written, options);
    written.push({ type, options });
    const own = Object.entries(options).filter(
      ([name]) => base === null || !(name in base.options),
    );
    out.push(
      "",
      ...docComment(
        [
          `Options of {@link ${className}} (${d.displayName}, \`createMethod(${JSON.stringify(d.name)}, options)\`): every field optional; the method's default otherwise. Out-of-range values throw a ValidationError naming the option.`,
          ...(base === null
            ? []
            : [
                `Every option of {@link ${base.type}}, plus ${listed(own.map(([name]) => `\`${name}\``))}.`,
              ]),
        ],
        "",
      ),
      base === null
        ? `export interface ${type} {`
        : `export interface ${type} extends ${base.type} {`,
    );
    for (const [name, spec] of own) {
      const range = `${typeText(spec)}; default ${defaultText(spec)}${spec.expert ? " (expert)" : ""}.`;
      out.push(...docComment([spec.doc, range.charAt(0).toUpperCase() + range.slice(1)], "  "));
      out.push(`  ${name}?: ${valueType(spec)};`);
    }
    out.push("}");
    out.push(
      "",
      `/** {@link ${type}} with every default filled in: a fitted ${className}'s \`params\`. */`,
      `export interface Resolved${type} extends Required<${type}> {}`,
    );
    types.push(type);
    registry.push(
      `  ${/^[a-z]+$/.test(d.name) ? d.name : JSON.stringify(d.name)}: { options: ${type}; model: ${className} };`,
    );
  }
  out.push("");
  // In the order biome's organizeImports keeps: by module, then by name.
  const imports = [
    ...classes.map((c) => ({ from: `./${fileOf(c)}.js`, text: [`import type { ${c} } from`] })),
    {
      from: "./optionTypes.js",
      text: [
        "import type {",
        ...types.sort((a, b) => a.localeCompare(b)).map((t) => `  ${t},`),
        "} from",
      ],
    },
  ]
    .sort((a, b) => a.from.localeCompare(b.from))
    .flatMap(({ from, text }) => [...text.slice(0, -1), `${text.at(-1)} "${from}";`]);
  const registryFile = [
    "/**",
    " * The built-in methods by name with their option types and classes, generated from",
    " * their declarations by scripts/docs/optionTypes.ts (`npm run docs`); do not edit by",
    " * hand. Apart from optionTypes.ts because it names the classes, whose files import",
    " * their option types from there.",
    " */",
    "",
    ...imports,
    "",
    "/**",
    " * The registered methods by name, with their options and model classes: what",
    " * `createMethod` and `fitInWorker` accept (a name not here does not compile). A",
    " * method registered with `registerMethod` adds itself by declaration merging:",
    ' * `declare module "sdspcaan" { interface MethodRegistry { mine: { options: MineOptions;',
    " * model: Mine } } }`.",
    " */",
    "export interface MethodRegistry {",
    ...registry,
    "}",
    "",
    "/** The name of a method in {@link MethodRegistry}. */",
    "export type MethodName = keyof MethodRegistry & string;",
    "",
  ];
  return { "optionTypes.ts": out.join("\n"), "methodRegistry.ts": registryFile.join("\n") };
}

/**
 * The earlier method whose options are all among `options`, declared by the same spec
 * objects, and more than half of them (a method built on another's option lists, as
 * SDSPCAAN on SDSPCA-LPP's), with the most options; null when none is. Extending its
 * interface writes each shared option's type and doc once; a base sharing only `k`
 * would say nothing about how the methods relate.
 */
function widestIncluded(
  earlier: ReadonlyArray<{ type: string; options: Record<string, OptionSpec> }>,
  options: Record<string, OptionSpec>,
): { type: string; options: Record<string, OptionSpec> } | null {
  let best: { type: string; options: Record<string, OptionSpec> } | null = null;
  for (const e of earlier) {
    const names = Object.keys(e.options);
    const count = Object.keys(options).length;
    if (names.length * 2 <= count || names.length >= count) continue;
    if (!names.every((name) => options[name] === e.options[name])) continue;
    if (best === null || names.length > Object.keys(best.options).length) best = e;
  }
  return best;
}

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The method file that declares a class (the class name in camelCase, as the files are named). */
function fileOf(className: string): string {
  const files: Record<string, string> = {
    Baseline: "baseline",
    PCA: "pca",
    SDSPCA: "sdspca",
    PCAN: "pcan",
    SPCAN: "spcan",
    SDSPCALPP: "sdspcaLpp",
    SDSPCAAN: "sdspcaan",
    JPCDA: "jpcda",
    SLNP: "slnp",
    LDA: "lda",
    LPP: "lpp",
  };
  const file = files[className];
  if (file === undefined) throw new Error(`optionTypes: no file known for the class ${className}`);
  return file;
}
