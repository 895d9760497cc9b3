/**
 * Run by noEnvironment.test.ts: the environment refuses every read of an SDSPCAAN_
 * variable as Deno without --allow-env refuses it (a NotCapable error), then the
 * library's Node entry is imported and fits. Prints one JSON line.
 */
const real = process.env;
const refused: string[] = [];
Object.defineProperty(process, "env", {
  configurable: true,
  value: new Proxy(real, {
    get(target, key) {
      if (typeof key === "string" && key.startsWith("SDSPCAAN_")) {
        refused.push(key);
        const err = new Error(
          `Requires env access to "${key}", run again with the --allow-env flag`,
        );
        err.name = "NotCapable";
        throw err;
      }
      return Reflect.get(target, key);
    },
  }),
});

const { PCA } = await import("#internal/index.node.js");
const { requestedKernelBackend } = await import("#internal/linalg/kernels/wasm/backend.js");
const model = new PCA({ k: 2 }).fit(
  Array.from({ length: 12 }, (_, i) => [i % 3, (i * 7) % 5, (i * i) % 11]),
  Array.from({ length: 12 }, (_, i) => i % 2),
);
console.log(
  JSON.stringify({
    refused: [...new Set(refused)].sort(),
    request: requestedKernelBackend(),
    components: model.components.rows,
  }),
);
