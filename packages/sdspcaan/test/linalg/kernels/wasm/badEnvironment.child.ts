/**
 * Run by badEnvironment.test.ts with SDSPCAAN_KERNELS or SDSPCAAN_NATIVE set to a value
 * that names nothing: the library's Node entry is imported (which must not throw), a
 * fit is tried (which must be refused, naming the variable), then the program chooses
 * what the variable chooses and fits. Prints one JSON line.
 */
const { PCA, kernelBackend, setKernelBackend } = await import("#internal/index.node.js");
const { setNativeKernels } = await import("#internal/linalg/kernels/nativeGemm.node.js");

const fit = (): number =>
  new PCA({ k: 2 }).fit(
    Array.from({ length: 12 }, (_, i) => [i % 3, (i * 7) % 5, (i * i) % 11]),
    Array.from({ length: 12 }, (_, i) => i % 2),
  ).components.rows;

let refusal: { name: string; argument: string; message: string } | null = null;
try {
  fit();
} catch (err) {
  const e = err as { name: string; argument: string; message: string };
  refusal = { name: e.name, argument: e.argument, message: e.message };
}
if (process.env.SDSPCAAN_NATIVE !== undefined) setNativeKernels(false);
else setKernelBackend("portable");
console.log(JSON.stringify({ refusal, components: fit(), backend: kernelBackend() }));
