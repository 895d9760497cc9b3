/**
 * Splits delimited text into fields as its bytes arrive, in chunks cut anywhere: a
 * field split between two chunks is read again from its start once the next chunk
 * is there, so the fields (and the rows' line numbers) do not depend on where the
 * chunks were cut. RFC 4180 quoting: a field may be quoted, with "" for a quote
 * inside and line breaks kept; spaces and tabs around a field are left out, but
 * not inside quotes. Line breaks are \n, \r\n and \r, each one line as an editor
 * counts them; empty lines (or lines of spaces) hold no row. With the delimiter " ",
 * fields are runs of non-blank characters and quotes are plain characters.
 */
import { failDataFormat as fail } from "../core/errors.js";

/** Receives the fields of each row in order. */
export interface FieldSink {
  /**
   * One field: `buf[start, end)`, trimmed unless quoted. A quoted field's bytes are
   * those between its quotes, with `escaped` when they hold a doubled quote (""),
   * which stands for one. The bytes are only valid during the call.
   */
  field(buf: Uint8Array, start: number, end: number, quoted: boolean, escaped: boolean): void;
  /** The end of a row that starts on `line` (of the file, from 1). */
  endRow(line: number): void;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const FF = 0x0c;
const VT = 0x0b;

/** Blanks dropped before a field (csv-parse's `ltrim` set without the line breaks). */
function isLeadingBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === FF;
}

/** Blanks dropped after an unquoted field (the ASCII ones of String.prototype.trimEnd). */
function isTrailingBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === FF || c === VT;
}

/** Field separators of the whitespace-delimited form (\s without the line breaks). */
function isWhitespace(c: number): boolean {
  return c === SPACE || c === TAB || c === FF || c === VT;
}

export class DelimitedTokenizer {
  private readonly delimiter: number;
  private readonly whitespace: boolean;
  private readonly sink: FieldSink;
  private readonly file: string;
  /** The line (from 1) of the next byte to read. */
  private line = 1;
  /** The line the current row started on; 0 before its first field. */
  private rowLine = 0;
  /** Fields of the current row so far (for messages). */
  private column = 0;
  /** Bytes kept from the previous chunk: the start of a field not yet complete. */
  private carry: Uint8Array | null = null;
  /** Chunks received while a long carried field waits for enough bytes to finish it. */
  private queued: Uint8Array[] = [];
  private queuedBytes = 0;
  /** A \r ended the previous chunk: a \n starting the next belongs to it. */
  private afterCR = false;
  /** A delimiter was read: a field follows it, empty if the input ends. */
  private afterDelimiter = false;

  /** `delimiter` is one ASCII character, or " " for runs of whitespace. */
  constructor(delimiter: string, sink: FieldSink, file: string) {
    this.delimiter = delimiter.charCodeAt(0);
    this.whitespace = delimiter === " ";
    this.sink = sink;
    this.file = file;
  }

  /** Reads the next bytes; `chunk` is not kept after the call. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const carry = this.carry;
    if (carry === null) {
      this.run(chunk, false);
      return;
    }
    // A carried field is read again from its start: wait until the new bytes are as
    // many as the carried ones, so that a long field is scanned O(log) times, not once per chunk.
    if (this.queuedBytes + chunk.length < carry.length) {
      this.queued.push(chunk.slice());
      this.queuedBytes += chunk.length;
      return;
    }
    this.run(this.joined(carry, chunk), false);
  }

  /** Reads what is left: the input ends here. */
  finish(): void {
    const rest = this.carry === null ? new Uint8Array(0) : this.joined(this.carry, null);
    this.run(rest, true);
  }

  private joined(carry: Uint8Array, chunk: Uint8Array | null): Uint8Array {
    const out = new Uint8Array(carry.length + this.queuedBytes + (chunk?.length ?? 0));
    out.set(carry, 0);
    let at = carry.length;
    for (const q of this.queued) {
      out.set(q, at);
      at += q.length;
    }
    if (chunk !== null) out.set(chunk, at);
    this.queued = [];
    this.queuedBytes = 0;
    this.carry = null;
    return out;
  }

  private run(buf: Uint8Array, final: boolean): void {
    let p = 0;
    // push() runs no empty chunk, and finish() runs one only when nothing follows the \r.
    if (this.afterCR) {
      if (buf[0] === LF) p = 1;
      this.afterCR = false;
    }
    const stop = this.whitespace ? this.scanWhitespace(buf, p, final) : this.scan(buf, p, final);
    if (stop !== null) this.carry = buf.slice(stop);
    else if (final && this.rowLine !== 0) {
      if (this.afterDelimiter) this.sink.field(buf, 0, 0, false, false);
      this.endRow();
    }
  }

  private endRow(): void {
    this.sink.endRow(this.rowLine);
    this.rowLine = 0;
    this.column = 0;
  }

  /** Consumes a line break at `p` (a \r\n pair as one); returns the position after it. */
  private lineBreak(buf: Uint8Array, p: number): number {
    this.line++;
    if (buf[p] === CR) {
      if (p + 1 < buf.length) return buf[p + 1] === LF ? p + 2 : p + 1;
      // The last byte of the input too: nothing follows it to be skipped.
      this.afterCR = true;
    }
    return p + 1;
  }

  /** Where the current row's field is: scan() starts the row before reading a field. */
  private where(): string {
    return `row ${this.rowLine}, column ${this.column} (counting from 0)`;
  }

  /** Delimited text with quotes; returns where an unfinished field starts, or null when all was read. */
  private scan(buf: Uint8Array, from: number, final: boolean): number | null {
    const n = buf.length;
    const delim = this.delimiter;
    const sink = this.sink;
    let p = from;
    while (p < n) {
      const fieldStart = p;
      let q = p;
      while (q < n && buf[q] !== delim && isLeadingBlank(buf[q])) q++;
      if (q === n) return final ? null : fieldStart;
      let c = buf[q];
      if (this.rowLine === 0) {
        // A line that is empty, or blanks only, holds no row.
        if (c === LF || c === CR) {
          p = this.lineBreak(buf, q);
          continue;
        }
        this.rowLine = this.line;
      }
      let end: number;
      if (c === QUOTE) {
        // Line breaks inside the quotes are counted once the field is whole, as a
        // field cut by a chunk's end is scanned again.
        let r = q + 1;
        let breaks = 0;
        let escaped = false;
        for (;;) {
          while (r < n && buf[r] !== QUOTE && buf[r] !== LF && buf[r] !== CR) r++;
          if (r === n) {
            if (!final) return fieldStart;
            fail(
              this.file,
              `not valid delimited text: ${this.where()}: a quoted field is not closed by the end of the file`,
            );
          }
          const b = buf[r];
          if (b === QUOTE) {
            // A quote that ends the bytes so far: the check after the field waits for more.
            if (buf[r + 1] === QUOTE) {
              escaped = true;
              r += 2;
              continue;
            }
            break;
          }
          breaks++;
          r += b === CR && buf[r + 1] === LF ? 2 : 1;
        }
        let s = r + 1;
        while (s < n && buf[s] !== delim && isLeadingBlank(buf[s])) s++;
        if (s === n && !final) return fieldStart;
        c = s < n ? buf[s] : LF;
        if (c !== delim && c !== LF && c !== CR) {
          fail(
            this.file,
            `not valid delimited text: ${this.where()}: '${String.fromCharCode(c)}' after the closing quote of a quoted field (a quote inside a field is written "")`,
          );
        }
        sink.field(buf, q + 1, r, true, escaped);
        this.line += breaks;
        end = s;
      } else {
        let r = q;
        while (r < n) {
          const b = buf[r];
          if (b === delim || b === LF || b === CR) break;
          if (b === QUOTE) {
            fail(
              this.file,
              `not valid delimited text: ${this.where()}: a quote inside an unquoted field; quote the whole field ("...") and write a quote inside it as ""`,
            );
          }
          r++;
        }
        if (r === n && !final) return fieldStart;
        let e = r;
        while (e > q && isTrailingBlank(buf[e - 1])) e--;
        sink.field(buf, q, e, false, false);
        end = r;
      }
      this.column++;
      this.afterDelimiter = false;
      if (end === n) return null;
      if (buf[end] === delim) {
        p = end + 1;
        this.afterDelimiter = true;
      } else {
        p = this.lineBreak(buf, end);
        this.endRow();
      }
    }
    return null;
  }

  /** Fields separated by runs of whitespace, one row per non-blank line. */
  private scanWhitespace(buf: Uint8Array, from: number, final: boolean): number | null {
    const n = buf.length;
    let p = from;
    while (p < n) {
      let q = p;
      while (q < n && isWhitespace(buf[q])) q++;
      if (q === n) return final ? null : p;
      const c = buf[q];
      if (c === LF || c === CR) {
        p = this.lineBreak(buf, q);
        if (this.rowLine !== 0) this.endRow();
        continue;
      }
      let r = q;
      while (r < n && !isWhitespace(buf[r]) && buf[r] !== LF && buf[r] !== CR) r++;
      if (r === n && !final) return q;
      // A row is one line here.
      this.rowLine = this.line;
      this.sink.field(buf, q, r, false, false);
      p = r;
    }
    return null;
  }
}
