/** Binary files built byte by byte for the readers' tests. */

/** A NumPy .npy file (format 1.0) with the given header dict and raw data bytes. */
export function npyBytes(header: string, body: Uint8Array): Uint8Array {
  let h = header;
  const total = 10 + h.length + 1;
  h += " ".repeat((64 - (total % 64)) % 64);
  h += "\n";
  const head = new Uint8Array(10);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(head.buffer).setUint16(8, h.length, true);
  const out = new Uint8Array(10 + h.length + body.length);
  out.set(head, 0);
  out.set(new TextEncoder().encode(h), 10);
  out.set(body, 10 + h.length);
  return out;
}

/** Little-endian float64 bytes of rows, C order. */
export function float64Bytes(rows: number[][]): Uint8Array {
  const flat = rows.flat();
  const out = new Uint8Array(8 * flat.length);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < flat.length; i++) dv.setFloat64(8 * i, flat[i], true);
  return out;
}
