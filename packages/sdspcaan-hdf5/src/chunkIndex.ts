/**
 * The chunks a chunked HDF5 dataset's index lists, read from the file's bytes. HDF5
 * returns the fill value (0) for a chunk its index does not find, with no error, so a
 * damaged index (a lost entry, a changed entry count or key) reads as a matrix with
 * zeros in it; h5wasm 0.10 exposes neither H5Dget_num_chunks nor H5Dget_chunk_info,
 * so the index is walked here. Read: object headers of versions 1 and 2, data layout
 * messages of versions 1 to 3 and their version 1 B-tree of chunks, which is what
 * MATLAB (HDF5 1.8 file format) and h5py write. A version 4 layout (HDF5 1.10's other
 * chunk indexes) is not read: `chunkIndexOf` says so with null.
 */

/** Where a file's HDF5 addresses start, and how wide they are. */
export interface Hdf5Addressing {
  /** Byte of the file that address 0 names (the superblock's). */
  base: number;
  /** Bytes of an address ("size of offsets"). */
  offsetSize: number;
  /** Bytes of a length ("size of lengths"). */
  lengthSize: number;
}

/** What a dataset's chunk index lists, against the chunks its shape needs. */
export interface ChunkIndex {
  /** Distinct chunks listed whose offsets are chunk corners inside the shape. */
  listed: number;
}

/** Thrown while walking: the bytes are not what the format says is there. */
class Damaged extends Error {}

const LAYOUT_MESSAGE = 0x0008;
const CONTINUATION_MESSAGE = 0x0010;
const CHUNKED = 2;
/** Deeper than any index is (a node's children are a level below it). */
const MAX_LEVELS = 64;

function uint(bytes: Uint8Array, at: number, size: number): number {
  if (at < 0 || at + size > bytes.length) throw new Damaged("past the end of the file");
  let v = 0;
  for (let i = size - 1; i >= 0; i--) v = v * 256 + bytes[at + i];
  return v;
}

function signature(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

interface Message {
  type: number;
  at: number;
  size: number;
}

/** The messages of the object header at `address`, continuation blocks followed. */
function headerMessages(bytes: Uint8Array, a: Hdf5Addressing, address: number): Message[] {
  const out: Message[] = [];
  const start = a.base + address;
  const blocks: { at: number; end: number; v2: boolean }[] = [];
  if (signature(bytes, start, "OHDR")) {
    const flags = uint(bytes, start + 5, 1);
    let p = start + 6 + (flags & 0x20 ? 16 : 0) + (flags & 0x10 ? 4 : 0);
    const width = 1 << (flags & 3);
    const size = uint(bytes, p, width);
    p += width;
    // (The size is of the messages: the checksum follows them.)
    blocks.push({ at: p, end: p + size, v2: true });
    return walkBlocks(bytes, a, blocks, out, flags);
  }
  if (uint(bytes, start, 1) !== 1) throw new Damaged("no object header");
  const size = uint(bytes, start + 8, 4);
  blocks.push({ at: start + 16, end: start + 16 + size, v2: false });
  return walkBlocks(bytes, a, blocks, out, 0);
}

function walkBlocks(
  bytes: Uint8Array,
  a: Hdf5Addressing,
  blocks: { at: number; end: number; v2: boolean }[],
  out: Message[],
  flags: number,
): Message[] {
  for (let b = 0; b < blocks.length; b++) {
    if (b > 1024) throw new Damaged("too many header blocks");
    const { at, end, v2 } = blocks[b];
    if (end > bytes.length) throw new Damaged("past the end of the file");
    let p = at;
    while (p + (v2 ? 4 : 8) <= end) {
      const type = v2 ? uint(bytes, p, 1) : uint(bytes, p, 2);
      const size = v2 ? uint(bytes, p + 1, 2) : uint(bytes, p + 2, 2);
      const data = v2 ? p + 4 + (flags & 0x04 ? 2 : 0) : p + 8;
      if (data + size > end) throw new Damaged("a message past its header");
      out.push({ type, at: data, size });
      if (type === CONTINUATION_MESSAGE) {
        const next = a.base + uint(bytes, data, a.offsetSize);
        const length = uint(bytes, data + a.offsetSize, a.lengthSize);
        if (v2) {
          if (!signature(bytes, next, "OCHK")) throw new Damaged("no continuation block");
          blocks.push({ at: next + 4, end: next + length - 4, v2 });
        } else {
          blocks.push({ at: next, end: next + length, v2 });
        }
      }
      p = data + size;
    }
  }
  return out;
}

/**
 * The chunks listed by the index of the dataset whose object header is at `address`
 * (an address as HDF5 stores them), for a dataset of `shape` in chunks of `chunks`;
 * null when its layout is one this does not read (version 4).
 */
export function chunkIndexOf(
  bytes: Uint8Array,
  a: Hdf5Addressing,
  address: number,
  shape: readonly number[],
  chunks: readonly number[],
): ChunkIndex | "damaged" | null {
  try {
    const layout = headerMessages(bytes, a, address).find((m) => m.type === LAYOUT_MESSAGE);
    if (layout === undefined) throw new Damaged("no data layout message");
    const version = uint(bytes, layout.at, 1);
    if (version > 3) return null;
    let p: number;
    let dimensionality: number;
    if (version === 3) {
      if (uint(bytes, layout.at + 1, 1) !== CHUNKED) throw new Damaged("not chunked");
      dimensionality = uint(bytes, layout.at + 2, 1);
      p = layout.at + 3;
    } else {
      dimensionality = uint(bytes, layout.at + 1, 1);
      if (uint(bytes, layout.at + 2, 1) !== CHUNKED) throw new Damaged("not chunked");
      p = layout.at + 8;
    }
    // The layout's dimensions are the dataset's and then the element's size.
    if (dimensionality !== shape.length + 1) throw new Damaged("another rank");
    const root = uint(bytes, p, a.offsetSize);
    const listed = new Set<string>();
    const tree: Tree = { bytes, a, dimensionality, shape, chunks, listed, nodes: new Set() };
    walkTree(tree, root, MAX_LEVELS);
    return { listed: listed.size };
  } catch (err) {
    if (err instanceof Damaged) return "damaged";
    throw err;
  }
}

interface Tree {
  bytes: Uint8Array;
  a: Hdf5Addressing;
  dimensionality: number;
  shape: readonly number[];
  chunks: readonly number[];
  /** The corners of the chunks found, as text. */
  listed: Set<string>;
  /** The nodes visited: a damaged tree that names one twice is refused, not walked again. */
  nodes: Set<number>;
}

/** Adds the chunks under the version 1 B-tree node at `address` to `t.listed`. */
function walkTree(t: Tree, address: number, levelsLeft: number): void {
  const { bytes, a, dimensionality, shape, chunks } = t;
  if (t.nodes.has(address)) throw new Damaged("a node named twice");
  t.nodes.add(address);
  const at = a.base + address;
  if (!signature(bytes, at, "TREE") || uint(bytes, at + 4, 1) !== 1) {
    throw new Damaged("no chunk B-tree node");
  }
  const level = uint(bytes, at + 5, 1);
  if (level >= levelsLeft) throw new Damaged("too deep");
  const entries = uint(bytes, at + 6, 2);
  const keySize = 8 + 8 * dimensionality;
  let p = at + 8 + 2 * a.offsetSize;
  for (let e = 0; e < entries; e++) {
    const key = p;
    const child = uint(bytes, p + keySize, a.offsetSize);
    p += keySize + a.offsetSize;
    if (level > 0) {
      walkTree(t, child, level);
      continue;
    }
    const corner: number[] = [];
    for (let d = 0; d < shape.length; d++) {
      const offset = uint(bytes, key + 8 + 8 * d, 8);
      // A chunk outside the shape or not at a chunk's corner covers none of it.
      if (offset >= shape[d] || offset % chunks[d] !== 0) break;
      corner.push(offset);
    }
    if (corner.length === shape.length) t.listed.add(corner.join(","));
  }
}
