/**
 * A raw DEFLATE decoder (RFC 1951: stored, fixed-Huffman and dynamic-Huffman blocks),
 * synchronous and dependency-free, for the one stream the library embeds: the
 * WebAssembly kernels, stored compressed in module.ts because that halves what every
 * bundle of the library carries (12.5 KB of module, 16.7 KB as base64, 7 KB as
 * compressed base64). Data files are inflated by node:zlib or the platform's
 * DecompressionStream (formats/inflate.ts), not by this.
 *
 * Canonical Huffman codes are decoded by walking the code lengths bit by bit (the
 * "count / symbol" tables of zlib's puff.c): slower than table lookup, and the stream
 * is 5 KB.
 */

interface Huffman {
  /** count[len]: how many codes have length len (0..15). */
  readonly count: Uint16Array;
  /** The symbols in canonical order. */
  readonly symbol: Uint16Array;
}

function huffman(lengths: Uint8Array, n: number): Huffman {
  const count = new Uint16Array(16);
  const symbol = new Uint16Array(n);
  for (let s = 0; s < n; s++) count[lengths[s]]++;
  const offs = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offs[len + 1] = offs[len] + count[len];
  for (let s = 0; s < n; s++) if (lengths[s] !== 0) symbol[offs[lengths[s]]++] = s;
  count[0] = 0;
  return { count, symbol };
}

/**
 * The base values and extra-bit counts of DEFLATE's length or distance codes
 * (RFC 1951, 3.2.5): code i stands for base[i] + the next extra[i] bits, and each base
 * follows the range of the code before it.
 */
function codeRanges(count: number, first: number, extraOf: (i: number) => number) {
  const extra = Array.from({ length: count }, (_, i) => extraOf(i));
  const base = [first];
  for (let i = 1; i < count; i++) base.push(base[i - 1] + (1 << extra[i - 1]));
  return { base, extra };
}

/** The order in which a dynamic block lists the code-length code's lengths. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * The bytes that the raw DEFLATE stream `input` encodes, `size` of them (the caller
 * knows the size: module.ts records it). Throws on a malformed stream or a size
 * that does not match.
 */
export function inflateRaw(input: Uint8Array, size: number): Uint8Array {
  // Lengths 3..258 (codes 257..285; 285 is 258 itself, without extra bits) and
  // distances 1..32768 (codes 0..29).
  const lengthCodes = codeRanges(29, 3, (i) => (i < 8 || i === 28 ? 0 : (i >> 2) - 1));
  lengthCodes.base[28] = 258;
  const distanceCodes = codeRanges(30, 1, (i) => (i < 4 ? 0 : (i >> 1) - 1));
  const out = new Uint8Array(size);
  let outPos = 0;
  let inPos = 0;
  let bitBuf = 0;
  let bitCount = 0;

  const fail = (why: string): never => {
    throw new Error(`inflateRaw: corrupt stream (${why})`);
  };
  const bits = (need: number): number => {
    let value = bitBuf;
    while (bitCount < need) {
      if (inPos >= input.length) fail("unexpected end");
      value |= input[inPos++] << bitCount;
      bitCount += 8;
    }
    bitBuf = value >>> need;
    bitCount -= need;
    return value & ((1 << need) - 1);
  };
  const decode = (h: Huffman): number => {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= 15; len++) {
      code |= bits(1);
      const count = h.count[len];
      if (code - count < first) return h.symbol[index + (code - first)];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    return fail("bad code");
  };

  let last = 0;
  while (last === 0) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      bitBuf = 0;
      bitCount = 0;
      if (inPos + 4 > input.length) fail("unexpected end");
      const len = input[inPos] | (input[inPos + 1] << 8);
      const nlen = input[inPos + 2] | (input[inPos + 3] << 8);
      inPos += 4;
      if (len !== (~nlen & 0xffff)) fail("stored length");
      if (inPos + len > input.length || outPos + len > size) fail("stored block size");
      out.set(input.subarray(inPos, inPos + len), outPos);
      inPos += len;
      outPos += len;
      continue;
    }
    let lit: Huffman;
    let dist: Huffman;
    if (type === 1) {
      const lengths = new Uint8Array(288);
      lengths.fill(8, 0, 144);
      lengths.fill(9, 144, 256);
      lengths.fill(7, 256, 280);
      lengths.fill(8, 280, 288);
      lit = huffman(lengths, 288);
      dist = huffman(new Uint8Array(30).fill(5), 30);
    } else if (type === 2) {
      const nlen = bits(5) + 257;
      const ndist = bits(5) + 1;
      const ncode = bits(4) + 4;
      const codeLengths = new Uint8Array(19);
      for (let i = 0; i < ncode; i++) codeLengths[CODE_LENGTH_ORDER[i]] = bits(3);
      const lencode = huffman(codeLengths, 19);
      const lengths = new Uint8Array(nlen + ndist);
      for (let i = 0; i < nlen + ndist; ) {
        const sym = decode(lencode);
        if (sym < 16) {
          lengths[i++] = sym;
          continue;
        }
        let repeat: number;
        let value = 0;
        if (sym === 16) {
          if (i === 0) fail("repeat with no previous length");
          value = lengths[i - 1];
          repeat = 3 + bits(2);
        } else if (sym === 17) {
          repeat = 3 + bits(3);
        } else {
          repeat = 11 + bits(7);
        }
        if (i + repeat > nlen + ndist) fail("too many lengths");
        lengths.fill(value, i, i + repeat);
        i += repeat;
      }
      lit = huffman(lengths.subarray(0, nlen), nlen);
      dist = huffman(lengths.subarray(nlen), ndist);
    } else {
      return fail("block type 3");
    }
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        if (outPos >= size) fail("longer than its size");
        out[outPos++] = sym;
      } else if (sym === 256) {
        break;
      } else {
        const l = sym - 257;
        if (l >= 29) fail("bad length symbol");
        const len = lengthCodes.base[l] + bits(lengthCodes.extra[l]);
        const d = decode(dist);
        if (d >= 30) fail("bad distance symbol");
        const back = distanceCodes.base[d] + bits(distanceCodes.extra[d]);
        if (back > outPos) fail("distance too far back");
        if (outPos + len > size) fail("longer than its size");
        for (let k = 0; k < len; k++, outPos++) out[outPos] = out[outPos - back];
      }
    }
  }
  if (outPos !== size) fail(`${outPos} bytes, not ${size}`);
  return out;
}
