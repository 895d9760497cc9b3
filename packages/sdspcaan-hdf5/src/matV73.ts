/**
 * MAT v7.3 files, which are HDF5 files behind a 512-byte MATLAB header, and plain
 * HDF5 files, read with h5wasm (the HDF5 C library compiled to WebAssembly).
 * MATLAB writes its column-major arrays as row-major HDF5 datasets with the
 * dimensions reversed, so an r x c MATLAB matrix is a [c, r] dataset.
 *
 * What was found about h5wasm 0.10 (HDF5 2.0) on corrupt files, and the guards:
 * - With the default error handler HDF5 prints its diagnostics to the wasm stderr
 *   and returns an error code; h5wasm does not always check it, so a corrupt chunk
 *   can come back as zeros with no exception. The stderr device is redirected into
 *   a buffer, and any diagnostic during a call fails that read.
 * - h5wasm's "throwing" error handler is not used: each error leaks a temporary
 *   file descriptor, and after about 2,250 errors the module corrupts its memory
 *   and aborts.
 * - A corrupt B-tree can make HDF5 allocate the declared chunk size (hundreds of
 *   MB to 2 GB) before noticing, and wasm memory never shrinks. Growth of the wasm
 *   heap is capped during each call (WebAssembly.Memory.prototype.grow is wrapped
 *   for h5wasm's memory only, and only while the call runs), so HDF5 sees a failed
 *   allocation and reports an error instead.
 * - A chunk that a damaged chunk index does not find reads as the fill value (0) with
 *   no diagnostic at all; after a chunked dataset is read, its index is walked in the
 *   file's bytes (chunkIndex.ts) and a dataset missing chunks is refused.
 * - The superblock signature is checked before the bytes are handed to HDF5.
 * - No hang or abort was seen in 4,500 mutated copies of Musk1.mat; should the
 *   module abort anyway, later HDF5 reads fail with a clear error instead of
 *   touching a broken instance.
 * Files are written to h5wasm's in-memory file system for the duration of one
 * read and unlinked afterwards.
 */

import type { Reference as H5Reference } from "h5wasm";
import { DataFormatError } from "sdspcaan";
import {
  cellTexts,
  charArrayRows,
  elementCount,
  formatBytes,
  type Hdf5Contents,
  hdf5SuperblockOffset,
  looksLikeMatV73,
  MAX_DEFLATE_RATIO,
  maxBytesOf,
  NUMERIC_CLASS_NAMES,
  type RawVariable,
  type ReadLimits,
  singleRowText,
  type VariableKind,
} from "sdspcaan/formats";
import { chunkIndexOf, type Hdf5Addressing } from "./chunkIndex.js";

type H5Lib = typeof import("h5wasm")["default"];
type H5Module = Awaited<H5Lib["ready"]>;
type H5File = InstanceType<H5Lib["File"]>;
type H5Dataset = InstanceType<H5Lib["Dataset"]>;
type H5Group = InstanceType<H5Lib["Group"]>;

const MIB = 1024 * 1024;
/** How far the wasm heap may grow in a call that reads metadata only. */
const SMALL_BUDGET = 16 * MIB;
/** The heap growth allowed for what HDF5 itself needs besides data: a file's open, the references of a cell. */
const BASE_BUDGET = 64 * MIB;
/**
 * The heap HDF5 takes for each chunk of a dataset read whole: it maps every chunk of the
 * selection before reading one. scripts/dev/hdf5ChunkHeap.ts measures 3.8 to 4.8 KB a
 * chunk on h5wasm 0.10 (HDF5 2.0), whatever the chunk index, the deflate filter, the
 * chunk's size (1 to 16 values) and whether it was ever written; 3-D to 8-D datasets took
 * up to 4.6 KB. This is a third above the most.
 */
const HEAP_PER_CHUNK = 6 * 1024;
/**
 * Chunks a dataset may declare whatever its file's size (about as many as the base
 * budget alone covers): never-written chunks take no room in the file yet cost HDF5 as
 * much heap as stored ones, so only past this many must the file hold them.
 */
const CHUNKS_WITHOUT_FILE_BYTES = 16_384;
/**
 * The fewest file bytes a stored filtered chunk takes: its entry in the chunk index (an
 * address of 2 bytes or more, its size in 1 or more, a 4-byte filter mask) and a byte of data.
 */
const MIN_FILTERED_CHUNK_BYTES = 8;
/**
 * The least heap a chunk took in scripts/dev/hdf5ChunkHeap.ts's measurements (3.8 KB):
 * a read whose chunks need more than the WebAssembly memory can ever hold at this rate
 * cannot succeed, and is refused as such before HDF5 starts mapping them.
 */
const LEAST_HEAP_PER_CHUNK = 3800;
const NUMERIC_CLASSES: ReadonlySet<string> = new Set(NUMERIC_CLASS_NAMES);

/**
 * Checks the superblock enough that HDF5 is only handed plausible files; returns where
 * its addresses start (HDF5 counts them from the superblock, behind MATLAB's header
 * too) and their widths.
 */
function checkSuperblock(bytes: Uint8Array, file: string): Hdf5Addressing {
  const off = hdf5SuperblockOffset(bytes);
  if (off === null) {
    throw new DataFormatError(
      file,
      "not an HDF5 file (no HDF5 signature at byte 0, 512, 1024, ...); a MAT v7.3 file may be truncated",
    );
  }
  const version = bytes[off + 8];
  if (version > 3) throw new DataFormatError(file, `unknown HDF5 superblock version ${version}`);
  // Version 0/1 superblocks are at least 56 bytes, version 2/3 exactly 48.
  const minSize = version <= 1 ? 56 : 48;
  if (bytes.length < off + minSize) {
    throw new DataFormatError(file, "truncated HDF5 superblock");
  }
  const offsetSize = version <= 1 ? bytes[off + 13] : bytes[off + 9];
  const lengthSize = version <= 1 ? bytes[off + 14] : bytes[off + 10];
  if (![2, 4, 8].includes(offsetSize) || ![2, 4, 8].includes(lengthSize)) {
    throw new DataFormatError(
      file,
      `corrupt HDF5 superblock (sizes of offsets ${offsetSize} and lengths ${lengthSize})`,
    );
  }
  return { base: off, offsetSize, lengthSize };
}

interface H5Env {
  lib: H5Lib;
  M: H5Module;
  diag: string[];
  /** Set when the module aborted: its memory can no longer be trusted. */
  broken: string | null;
}

/** The parts of the WebAssembly global used here (the DOM typings are not loaded). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Memory: { prototype: WasmMemory }; RuntimeError: new () => Error };
  }
).WebAssembly;

let envPromise: Promise<H5Env> | null = null;
let fileSeq = 0;

interface TtyLike {
  ops: {
    put_char(tty: TtyLike, val: number | null): void;
    fsync(tty: TtyLike): void;
  };
}

/**
 * Routes HDF5's stderr diagnostics (emscripten's tty1 device) into `diag`, a line at a
 * time. Whether they really arrive there is what h5env's probe checks.
 */
function captureStderr(M: H5Module, diag: string[]): boolean {
  const fs = M.FS as unknown as { streams?: ({ tty?: TtyLike } | null)[] };
  const tty = fs.streams?.[2]?.tty;
  if (!tty) return false;
  let line: number[] = [];
  const flush = () => {
    if (line.length > 0) diag.push(new TextDecoder().decode(Uint8Array.from(line)));
    line = [];
  };
  tty.ops = {
    put_char(_tty, val) {
      if (val === null || val === 10) flush();
      else line.push(val);
    },
    fsync: flush,
  };
  return true;
}

async function h5env(file: string): Promise<H5Env> {
  envPromise ??= (async () => {
    const lib = (await import("h5wasm")).default;
    const M = await lib.ready;
    const diag: string[] = [];
    const env: H5Env = { lib, M, diag, broken: null };
    // Without the diagnostics a failed read could pass for a good one, so check
    // that they really arrive before trusting any file to this module.
    const captured = captureStderr(M, diag);
    // Nothing writes this path, so the file never opens (and needs no closing): HDF5 only reports.
    if (captured) new lib.File("/sdspcaan-probe-does-not-exist.h5");
    if (!captured || diag.length === 0) {
      env.broken = "this h5wasm build does not report HDF5 errors in a way sdspcaan can capture";
    }
    // (The probe's report stays in `diag`: each guarded call starts by emptying it.)
    return env;
  })();
  const env = await envPromise;
  if (env.broken !== null) {
    throw new DataFormatError(file, `cannot read HDF5 files safely: ${env.broken}`);
  }
  return env;
}

/** The gist of an HDF5 error stack: the outermost call and the innermost cause. */
function summarizeDiagnostics(diag: string[]): string | null {
  const msgs: string[] = [];
  for (const line of diag) {
    const m = /#\d+:.* in ([\w.]+)\(\): (.*)/.exec(line);
    if (m) msgs.push(m[2].trim());
  }
  if (msgs.length === 0) return diag.length > 0 ? diag.join(" ").slice(0, 300) : null;
  const first = msgs[0];
  const last = msgs[msgs.length - 1];
  if (diag.some((l) => /memory allocation failed|can't allocate|allocation failed/i.test(l))) {
    return `${first}: it declares more memory than the file can hold (corrupt sizes)`;
  }
  return first === last ? first : `${first} (${last})`;
}

/**
 * Runs one synchronous h5wasm call with diagnostics captured and wasm heap growth
 * capped at `heapBudget` bytes; any HDF5 diagnostic or exception becomes a
 * DataFormatError naming the file and `what`.
 */
function guarded<T>(env: H5Env, file: string, what: string, heapBudget: number, fn: () => T): T {
  if (env.broken !== null) {
    throw new DataFormatError(file, `${what}: the HDF5 reader is unusable (${env.broken})`);
  }
  const { M, diag } = env;
  diag.length = 0;
  const proto = wasm.Memory.prototype;
  const grow = proto.grow;
  const limit = M.HEAPU8.byteLength + heapBudget;
  proto.grow = function (this: WasmMemory, delta: number): number {
    if (this.buffer === M.HEAPU8.buffer && this.buffer.byteLength + delta * 65536 > limit) {
      // emscripten turns this into a failed malloc, which HDF5 reports as an error.
      throw new RangeError("HDF5 memory budget exceeded");
    }
    return grow.call(this, delta);
  };
  let result: T;
  try {
    result = fn();
  } catch (err) {
    // (h5wasm's errors only: no call made here throws a DataFormatError.)
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof wasm.RuntimeError || /Aborted\(/.test(message)) {
      env.broken = `it aborted while reading ${file}: ${message}; restart the program`;
    }
    throw new DataFormatError(file, `${what}: ${summarizeDiagnostics(diag) ?? message}`);
  } finally {
    proto.grow = grow;
  }
  if (diag.length > 0) {
    throw new DataFormatError(
      file,
      `${what}: HDF5 reported an error: ${summarizeDiagnostics(diag)}`,
    );
  }
  return result;
}

/** Converts what h5wasm returns for a numeric dataset to float64. */
function toFloat64(value: unknown, count: number, file: string, where: string): Float64Array {
  if (value instanceof BigInt64Array || value instanceof BigUint64Array) {
    return checkCount(Float64Array.from(value, Number), count, file, where);
  }
  if (
    value instanceof Float64Array ||
    value instanceof Float32Array ||
    value instanceof Int8Array ||
    value instanceof Uint8Array ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int32Array ||
    value instanceof Uint32Array
  ) {
    const out = new Float64Array(value.length);
    out.set(value);
    return checkCount(out, count, file, where);
  }
  // Scalars: h5wasm gives integers and floats as numbers, 64-bit integers as bigints.
  if (typeof value === "number" || typeof value === "bigint") {
    return checkCount(Float64Array.of(Number(value)), count, file, where);
  }
  throw new DataFormatError(file, `${where}: the HDF5 datatype is not a plain numeric type`);
}

function checkCount(out: Float64Array, count: number, file: string, where: string): Float64Array {
  if (out.length !== count) {
    throw new DataFormatError(
      file,
      `${where}: read ${out.length} values where ${count} were declared`,
    );
  }
  return out;
}

function rowsOfCodes(codes: Float64Array, dims: readonly number[]): string[] {
  return charArrayRows(codes, dims[0] ?? 0, (c) => String.fromCharCode(c));
}

interface Session {
  env: H5Env;
  file: string;
  h5: H5File;
  /** The file's bytes, for reading chunk indexes (see chunkIndex.ts). */
  bytes: Uint8Array;
  addressing: Hdf5Addressing;
  fileBytes: number;
  maxBytes: number;
  open: boolean;
  /** The paths of #refs#'s members by their reference's bytes, once a cell has needed it. */
  refPaths?: ReadonlyMap<string, string>;
}

/** MATLAB's group of the arrays a cell's references point to. */
const REFS_GROUP = "#refs#";

function referenceKey(ref: H5Reference): string {
  let key = "";
  for (const b of ref.ref_data) key += b.toString(16).padStart(2, "0");
  return key;
}

/**
 * The path a cell's reference points to. HDF5 names a referenced object by searching
 * the whole file for it (H5Rget_name), so a cell of n texts dereferenced one by one took
 * time growing as n^2 (5,000 labels: two minutes). MATLAB keeps every element in
 * #refs#: the references of its members, made once (each from its known path), name
 * them at once; a reference to anything else is dereferenced as before.
 */
function referencedPath(s: Session, where: string, ref: H5Reference): string | null {
  const { env, file, h5 } = s;
  if (s.refPaths === undefined) {
    s.refPaths = guarded(env, file, where, BASE_BUDGET, () => {
      const paths = new Map<string, string>();
      const group = h5.get(REFS_GROUP);
      if (!(group instanceof env.lib.Group)) return paths;
      for (const name of group.keys()) {
        const member = group.get(name);
        if (member instanceof env.lib.Dataset || member instanceof env.lib.Group) {
          paths.set(referenceKey(member.create_reference()), `/${REFS_GROUP}/${name}`);
        }
      }
      return paths;
    });
  }
  return s.refPaths.get(referenceKey(ref)) ?? null;
}

function attrString(ds: H5Dataset | H5Group, name: string): string | null {
  const attrs = ds.attrs;
  if (!(name in attrs)) return null;
  const v = attrs[name].value;
  if (typeof v === "string") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return null;
}

/** Refuses to touch a dataset of a closed file (its handles may name another file by then). */
function checkOpen(s: Session, where: string): void {
  if (!s.open) throw new DataFormatError(s.file, `${where}: the HDF5 file is already closed`);
}

/** Reads a dataset's values after checking its declared size against the file and the cap. */
function readDataset(s: Session, ds: H5Dataset, where: string): Float64Array {
  const { env, file } = s;
  checkOpen(s, where);
  const meta = guarded(env, file, where, SMALL_BUDGET, () => ds.metadata);
  const shape = meta.shape ?? [];
  const count = elementCount(shape);
  const bytes = count * meta.size;
  if (meta.type !== 0 && meta.type !== 1) {
    throw new DataFormatError(file, `${where}: HDF5 datatype class ${meta.type} is not numeric`);
  }
  if (bytes > s.maxBytes || count * 8 > s.maxBytes) {
    throw new DataFormatError(
      file,
      `${where}: shape [${shape.join(", ")}] needs ${formatBytes(count * 8)} as float64, more than the ${formatBytes(s.maxBytes)} limit (maxBytes)`,
    );
  }
  const filters = guarded(env, file, where, SMALL_BUDGET, () => ds.filters);
  // Unfiltered data is stored as is, so it cannot be larger than the file; filtered
  // (deflated) data cannot expand beyond deflate's ratio.
  const bound = filters.length === 0 ? s.fileBytes : s.fileBytes * MAX_DEFLATE_RATIO;
  if (bytes > bound) {
    throw new DataFormatError(
      file,
      `${where}: shape [${shape.join(", ")}] declares ${formatBytes(bytes)} of data, more than a ${formatBytes(s.fileBytes)} file can hold`,
    );
  }
  const chunks = meta.chunks ?? [];
  const chunkCount = chunkCountOf(shape, chunks);
  // An unfiltered chunk is stored whole, edge chunks too; past the allowance the file must
  // hold every chunk declared, so the chunks' heap stays bounded by the file's size.
  const storedChunkBytes =
    filters.length === 0 ? elementCount(chunks) * meta.size : MIN_FILTERED_CHUNK_BYTES;
  const fileChunks = Math.floor(s.fileBytes / Math.max(storedChunkBytes, 1));
  // Built only for a refusal: a cell's every element passes here.
  const declared = () =>
    `${where}: shape [${shape.join(", ")}] in chunks of [${chunks.join(", ")}] is ${chunkCount} chunks`;
  if (chunkCount > Math.max(fileChunks, CHUNKS_WITHOUT_FILE_BYTES)) {
    throw new DataFormatError(
      file,
      `${declared()}, more than a ${formatBytes(s.fileBytes)} file can hold (${fileChunks}) and more than the ${CHUNKS_WITHOUT_FILE_BYTES} any file may declare`,
    );
  }
  const least = bytes + chunkCount * LEAST_HEAP_PER_CHUNK;
  if (least > env.M.MAXIMUM_MEMORY) {
    throw new DataFormatError(
      file,
      `${declared()}, which take at least ${formatBytes(least)} of HDF5 memory to read, more than the ${formatBytes(env.M.MAXIMUM_MEMORY)} its WebAssembly module can have; rewrite it in larger chunks (h5repack -l does)`,
    );
  }
  const budget = 2 * bytes + BASE_BUDGET + chunkCount * HEAP_PER_CHUNK;
  const value = guarded(env, file, where, budget, () => ds.value);
  if (chunkCount > 0) checkChunkIndex(s, ds, where, shape, chunks, chunkCount, declared);
  return toFloat64(value, count, file, where);
}

/**
 * Refuses a chunked dataset whose index lists fewer chunks than its shape needs: HDF5
 * reads a chunk its index does not find as the fill value (0) without an error, so a
 * damaged index (bytes flipped in it) would load as a matrix with zeros in it. A
 * dataset left partly unwritten on purpose reads so too, but MATLAB writes every
 * chunk of a numeric matrix, so such a file is refused as well.
 */
function checkChunkIndex(
  s: Session,
  ds: H5Dataset,
  where: string,
  shape: readonly number[],
  chunks: readonly number[],
  needed: number,
  declared: () => string,
): void {
  const { env, file } = s;
  // An object reference is the address of the dataset's object header.
  const ref = guarded(env, file, where, SMALL_BUDGET, () => ds.create_reference().ref_data);
  let address = 0;
  for (let i = ref.length - 1; i >= 0; i--) address = address * 256 + ref[i];
  const index = chunkIndexOf(s.bytes, s.addressing, address, shape, chunks);
  // null: a version 4 layout, whose indexes are not read (MATLAB does not write them).
  // "damaged": bytes this walk does not follow although HDF5 read the dataset through
  // them, more likely a layout the walk does not know than damage HDF5 missed, so the
  // file is not refused on that alone.
  if (index === null || index === "damaged" || index.listed >= needed) return;
  throw new DataFormatError(
    file,
    `${declared()}, but its chunk index lists ${index.listed} of them: the file is damaged (HDF5 would read the missing chunks as zeros)`,
  );
}

/** How many chunks cover `shape` (none when the dataset is not chunked). */
function chunkCountOf(shape: readonly number[], chunks: readonly number[]): number {
  if (chunks.length === 0) return 0;
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= Math.ceil(shape[i] / Math.max(chunks[i] ?? 1, 1));
  return n;
}

function makeVariable(s: Session, name: string, matlab: boolean): RawVariable | null {
  const { env, file, h5 } = s;
  const where = `variable '${name}'`;
  const entity = guarded(env, file, where, SMALL_BUDGET, () => h5.get(name));
  if (entity instanceof env.lib.Dataset) {
    const ds = entity;
    const meta = guarded(env, file, where, SMALL_BUDGET, () => ds.metadata);
    const cls = guarded(env, file, where, SMALL_BUDGET, () => attrString(ds, "MATLAB_class"));
    // HDF5's null dataspace (no shape) holds no values, as MATLAB's empty arrays hold none.
    const isEmpty =
      meta.shape === null ||
      guarded(env, file, where, SMALL_BUDGET, () => "MATLAB_empty" in ds.attrs);
    const shape = meta.shape as number[];
    const reversed = matlab || cls !== null;
    const dims = isEmpty ? [0, 0] : reversed ? [...shape].reverse() : [...shape];
    while (dims.length < 2) dims.push(1);
    const complex = meta.type === 6;
    let kind: VariableKind;
    if (cls === null) kind = meta.type === 0 || meta.type === 1 ? "numeric" : "unknown";
    else if (NUMERIC_CLASSES.has(cls)) kind = "numeric";
    else if (cls === "logical") kind = "logical";
    else if (cls === "char") kind = "char";
    else if (cls === "cell") kind = "cell";
    else if (cls === "function_handle") kind = "function";
    else kind = "object";
    const values = (): { data: Float64Array; order: "F" | "C" } => {
      if (isEmpty) return { data: new Float64Array(0), order: "F" };
      if (complex)
        throw new DataFormatError(file, `${where} is complex; only real data can be used`);
      return { data: readDataset(s, ds, where), order: reversed ? "F" : "C" };
    };
    const texts = (): string[] | null => {
      if (kind === "char") return rowsOfCodes(values().data, dims);
      // A cell's elements are object references (HDF5 datatype class 7); of anything else
      // no texts can be made.
      if (kind !== "cell" || meta.type !== 7) return null;
      checkOpen(s, where);
      // h5wasm gives references as an array, even a scalar one.
      const refs = guarded(env, file, where, BASE_BUDGET, () => ds.value) as H5Reference[];
      return cellTexts(refs, (ref) => {
        const path = referencedPath(s, where, ref);
        const target = guarded(env, file, where, SMALL_BUDGET, () =>
          path === null ? h5.dereference(ref) : h5.get(path),
        );
        if (!(target instanceof env.lib.Dataset)) return null;
        const element: H5Dataset = target;
        const tcls = guarded(env, file, where, SMALL_BUDGET, () =>
          attrString(element, "MATLAB_class"),
        );
        const numeric = NUMERIC_CLASSES.has(tcls ?? "");
        // An empty element ('' or []) stores its dimensions [0 0] as its data, which
        // are no character codes.
        if (guarded(env, file, where, SMALL_BUDGET, () => "MATLAB_empty" in element.attrs)) {
          return tcls === "char" ? "" : numeric ? undefined : null;
        }
        const tshape = guarded(env, file, where, SMALL_BUDGET, () => element.metadata.shape ?? []);
        const data = readDataset(s, element, `${where} (cell element)`);
        if (tcls === "char") return singleRowText(rowsOfCodes(data, [...tshape].reverse()));
        return numeric && data.length === 1 ? String(data[0]) : null;
      });
    };
    return {
      name,
      kind,
      className: cls ?? String(guarded(env, file, where, SMALL_BUDGET, () => ds.dtype)),
      dims,
      complex,
      values,
      texts,
    };
  }
  if (entity instanceof env.lib.Group) {
    const g = entity;
    const cls = guarded(env, file, where, SMALL_BUDGET, () => attrString(g, "MATLAB_class"));
    const sparseRows = guarded(env, file, where, SMALL_BUDGET, () =>
      "MATLAB_sparse" in g.attrs ? Number(g.attrs.MATLAB_sparse.value) : null,
    );
    const kind: VariableKind =
      sparseRows !== null ? "sparse" : cls === null || cls === "struct" ? "struct" : "object";
    let dims: number[] = [1, 1];
    if (sparseRows !== null) {
      const jc = guarded(env, file, where, SMALL_BUDGET, () => g.get("jc"));
      const cols =
        jc instanceof env.lib.Dataset
          ? elementCount(guarded(env, file, where, SMALL_BUDGET, () => jc.metadata.shape ?? [1])) -
            1
          : 0;
      dims = [sparseRows, Math.max(cols, 0)];
    }
    const refuse = (): never => {
      throw new DataFormatError(
        file,
        kind === "sparse"
          ? `${where} is a sparse matrix; save it as a full (dense) matrix (MATLAB: full(${name}))`
          : `${where} is a ${cls ?? "group"} (${kind}), not a numeric array`,
      );
    };
    return {
      name,
      kind,
      className: kind === "sparse" ? "sparse" : (cls ?? "group"),
      dims,
      complex: false,
      values: refuse,
      texts: () => null,
    };
  }
  return null;
}

/**
 * Opens an HDF5 / MAT v7.3 file from a buffer, lists its top-level variables and
 * runs `use` on them while the file is open; the variables cannot be read after
 * `use` returns. All HDF5 failures become DataFormatErrors naming `file`.
 */
export async function withHdf5Variables<T>(
  bytes: Uint8Array,
  file: string,
  use: (contents: Hdf5Contents) => T,
  limits?: ReadLimits,
): Promise<T> {
  const addressing = checkSuperblock(bytes, file);
  const matlab = looksLikeMatV73(bytes);
  const env = await h5env(file);
  const maxBytes = maxBytesOf(limits);
  const path = `/sdspcaan-${++fileSeq}.h5`;
  env.M.FS.writeFile(path, bytes);
  let h5: H5File | null = null;
  try {
    const opened = guarded(
      env,
      file,
      "opening the HDF5 file",
      BASE_BUDGET + 2 * bytes.length,
      () => {
        return new env.lib.File(path);
      },
    );
    // A file HDF5 cannot open is reported (the probe in h5env checks that reports arrive).
    h5 = opened;
    const session: Session = {
      env,
      file,
      h5: opened,
      bytes,
      addressing,
      fileBytes: bytes.length,
      maxBytes,
      open: true,
    };
    const names = guarded(env, file, "listing variables", SMALL_BUDGET, () => opened.keys());
    const variables: RawVariable[] = [];
    for (const name of names) {
      // MATLAB keeps cell contents and object data in "#refs#" and "#subsystem#".
      if (name.startsWith("#")) continue;
      const v = makeVariable(session, name, matlab);
      if (v) variables.push(v);
    }
    try {
      return use({ format: matlab ? "mat-v7.3" : "hdf5", variables });
    } finally {
      session.open = false;
    }
  } finally {
    const toClose = h5;
    if (toClose !== null && env.broken === null) {
      try {
        guarded(env, file, "closing the HDF5 file", SMALL_BUDGET, () => toClose.close());
      } catch {
        // Closing a file that failed to read reports the same corruption again.
      }
    }
    try {
      env.M.FS.unlink(path);
    } catch {
      // Nothing to remove if writing the file failed.
    }
  }
}
