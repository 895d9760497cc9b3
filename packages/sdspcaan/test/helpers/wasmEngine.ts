/** The engine's WebAssembly (the project's TS lib has no DOM types). */
export const wasmEngine = (
  globalThis as unknown as {
    WebAssembly: {
      validate(bytes: Uint8Array): boolean;
      Module: new (bytes: Uint8Array) => object;
    };
  }
).WebAssembly;
