/**
 * The font figures are measured and rasterised with.
 *
 * Vega lays out text (legend columns, axis title offsets, label truncation) from text
 * widths. Headless, without the `canvas` package, it guesses 0.8 em per character, which
 * is far from any real font: legends get wide gaps and titles drift. We therefore read
 * the advance widths of a real TrueType font and give them to Vega, and hand the same
 * font files to resvg, so the PNG shows the text exactly where the layout put it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { ValidationError } from "sdspcaan";

/** Advance widths of one font face. */
export interface FontMetrics {
  /** Family name from the font's `name` table (e.g. "DejaVu Sans"). */
  readonly family: string;
  /** Width of `text` at `fontSize` pixels, without kerning (so never an underestimate by much). */
  width(text: string, fontSize: number): number;
}

/** The font used for figures: a family with a regular and (optionally) a bold face. */
export interface FigureFont {
  readonly family: string;
  readonly regularFile: string;
  readonly boldFile: string | undefined;
  readonly regular: FontMetrics;
  readonly bold: FontMetrics | undefined;
}

interface Table {
  readonly offset: number;
  readonly length: number;
}

function tableDirectory(buf: Buffer, file: string, argument: string): Map<string, Table> {
  if (buf.length < 12) throw new ValidationError(argument, `${file} is too short to be a font.`);
  let base = 0;
  // A TrueType collection: use its first face.
  if (buf.toString("latin1", 0, 4) === "ttcf") base = buf.readUInt32BE(12);
  const numTables = buf.readUInt16BE(base + 4);
  const tables = new Map<string, Table>();
  for (let i = 0; i < numTables; i++) {
    const rec = base + 12 + 16 * i;
    if (rec + 16 > buf.length) break;
    tables.set(buf.toString("latin1", rec, rec + 4), {
      offset: buf.readUInt32BE(rec + 8),
      length: buf.readUInt32BE(rec + 12),
    });
  }
  for (const tag of ["head", "hhea", "hmtx", "cmap", "name"]) {
    if (!tables.has(tag)) {
      throw new ValidationError(
        argument,
        `${file} is not a usable TrueType/OpenType font: it has no '${tag}' table.`,
      );
    }
  }
  return tables;
}

/** Builds a code point -> glyph index lookup from the best Unicode subtable of 'cmap'. */
function characterMap(buf: Buffer, cmap: Table): (codePoint: number) => number {
  const count = buf.readUInt16BE(cmap.offset + 2);
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < count; i++) {
    const rec = cmap.offset + 4 + 8 * i;
    const platform = buf.readUInt16BE(rec);
    const encoding = buf.readUInt16BE(rec + 2);
    const sub = cmap.offset + buf.readUInt32BE(rec + 4);
    const format = buf.readUInt16BE(sub);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    if (format === 12 && format12 < 0) format12 = sub;
    if (format === 4 && format4 < 0) format4 = sub;
  }
  if (format12 >= 0) {
    const groups = buf.readUInt32BE(format12 + 12);
    return (cp) => {
      let lo = 0;
      let hi = groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const g = format12 + 16 + 12 * mid;
        const start = buf.readUInt32BE(g);
        const end = buf.readUInt32BE(g + 4);
        if (cp < start) hi = mid - 1;
        else if (cp > end) lo = mid + 1;
        else return buf.readUInt32BE(g + 8) + (cp - start);
      }
      return 0;
    };
  }
  if (format4 >= 0) {
    const segX2 = buf.readUInt16BE(format4 + 6);
    const ends = format4 + 14;
    const starts = ends + segX2 + 2;
    const deltas = starts + segX2;
    const ranges = deltas + segX2;
    return (cp) => {
      if (cp > 0xffff) return 0;
      for (let s = 0; s < segX2; s += 2) {
        if (buf.readUInt16BE(ends + s) < cp) continue;
        const start = buf.readUInt16BE(starts + s);
        if (start > cp) return 0;
        const delta = buf.readUInt16BE(deltas + s);
        const range = buf.readUInt16BE(ranges + s);
        if (range === 0) return (cp + delta) & 0xffff;
        const glyph = buf.readUInt16BE(ranges + s + range + 2 * (cp - start));
        return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
      }
      return 0;
    };
  }
  return () => 0;
}

function familyName(buf: Buffer, name: Table, file: string): string {
  const count = buf.readUInt16BE(name.offset + 2);
  const strings = name.offset + buf.readUInt16BE(name.offset + 4);
  let fallback: string | undefined;
  for (let i = 0; i < count; i++) {
    const rec = name.offset + 6 + 12 * i;
    const platform = buf.readUInt16BE(rec);
    const nameId = buf.readUInt16BE(rec + 6);
    if (nameId !== 1) continue;
    const length = buf.readUInt16BE(rec + 8);
    const start = strings + buf.readUInt16BE(rec + 10);
    if (platform === 3 || platform === 0) {
      // UTF-16BE: swap into little-endian for Node's decoder.
      const bytes = Buffer.from(buf.subarray(start, start + length));
      bytes.swap16();
      return bytes.toString("utf16le");
    }
    fallback ??= buf.toString("latin1", start, start + length);
  }
  return fallback ?? basename(file).replace(/\.[^.]+$/, "");
}

/** Reads the family name and advance widths of a TrueType/OpenType font file. */
export function readFontMetrics(file: string, argument = "file"): FontMetrics {
  if (!existsSync(file)) throw new ValidationError(argument, `Font file ${file} does not exist.`);
  const buf = readFileSync(file);
  const tables = tableDirectory(buf, file, argument);
  const head = tables.get("head")!;
  const hhea = tables.get("hhea")!;
  const hmtx = tables.get("hmtx")!;
  const unitsPerEm = buf.readUInt16BE(head.offset + 18);
  const numberOfHMetrics = buf.readUInt16BE(hhea.offset + 34);
  if (unitsPerEm === 0 || numberOfHMetrics === 0) {
    throw new ValidationError(argument, `${file} has no horizontal metrics.`);
  }
  const glyphOf = characterMap(buf, tables.get("cmap")!);
  const family = familyName(buf, tables.get("name")!, file);
  const advanceCache = new Map<number, number>();
  const advance = (cp: number): number => {
    let a = advanceCache.get(cp);
    if (a === undefined) {
      // Glyphs past numberOfHMetrics share the last advance (monospaced tails).
      const glyph = Math.min(glyphOf(cp), numberOfHMetrics - 1);
      a = buf.readUInt16BE(hmtx.offset + 4 * glyph) / unitsPerEm;
      advanceCache.set(cp, a);
    }
    return a;
  };
  return {
    family,
    width(text: string, fontSize: number): number {
      let em = 0;
      for (const ch of text) em += advance(ch.codePointAt(0)!);
      return em * fontSize;
    },
  };
}

/**
 * Font files tried in order, as (regular, bold) base names. Wide humanist sans faces
 * first: if a viewer substitutes a narrower font for the SVG, text still fits.
 */
const CANDIDATES: ReadonlyArray<readonly [string, string]> = [
  ["dejavusans.ttf", "dejavusans-bold.ttf"],
  ["verdana.ttf", "verdanab.ttf"],
  ["notosans-regular.ttf", "notosans-bold.ttf"],
  ["liberationsans-regular.ttf", "liberationsans-bold.ttf"],
  ["arial.ttf", "arialbd.ttf"],
  ["arial.ttf", "arial bold.ttf"],
  ["freesans.ttf", "freesansbold.ttf"],
  ["roboto-regular.ttf", "roboto-bold.ttf"],
  ["opensans-regular.ttf", "opensans-bold.ttf"],
];

function fontDirectories(): string[] {
  const home = homedir();
  const dirs = [
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    join(home, ".fonts"),
    join(home, ".local", "share", "fonts"),
    "/Library/Fonts",
    "/System/Library/Fonts",
    join(home, "Library", "Fonts"),
  ];
  if (process.env.WINDIR) dirs.push(join(process.env.WINDIR, "Fonts"));
  return dirs;
}

/** Lower-cased base name -> first path found, scanning a few levels of each font folder. */
function indexFontFiles(dirs: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, depth: number): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry);
      let isDir: boolean;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        continue;
      }
      if (isDir) {
        if (depth < 4) walk(path, depth + 1);
      } else {
        const key = entry.toLowerCase();
        if (!found.has(key)) found.set(key, path);
      }
    }
  };
  for (const dir of dirs) walk(dir, 0);
  return found;
}

function makeFont(
  regularFile: string,
  boldFile: string | undefined,
  regularArgument = "files.regular",
  boldArgument = "files.bold",
): FigureFont {
  const regular = readFontMetrics(regularFile, regularArgument);
  const bold = boldFile === undefined ? undefined : readFontMetrics(boldFile, boldArgument);
  return { family: regular.family, regularFile, boldFile, regular, bold };
}

let chosen: FigureFont | null | undefined;

function discoverFont(): FigureFont | null {
  const fromEnv = process.env.SDSPCAAN_FONT;
  if (fromEnv)
    return makeFont(
      fromEnv,
      process.env.SDSPCAAN_FONT_BOLD || undefined,
      "SDSPCAAN_FONT",
      "SDSPCAAN_FONT_BOLD",
    );
  const files = indexFontFiles(fontDirectories());
  for (const [regular, bold] of CANDIDATES) {
    const regularPath = files.get(regular);
    if (regularPath === undefined) continue;
    try {
      return makeFont(regularPath, files.get(bold));
    } catch {
      // An unreadable candidate (e.g. a broken file) should not stop the search.
    }
  }
  return null;
}

/**
 * The font figures use: set with `setFigureFont`, else `$SDSPCAAN_FONT` (and
 * `$SDSPCAAN_FONT_BOLD`), else the first of DejaVu Sans, Verdana, Noto Sans,
 * Liberation Sans, Arial, FreeSans, Roboto, Open Sans found in the usual font folders.
 * `null` when none is found: Vega then estimates text widths and resvg uses whatever
 * system fonts it finds.
 */
export function figureFont(): FigureFont | null {
  if (chosen === undefined) chosen = discoverFont();
  return chosen;
}

/**
 * Uses the given TrueType/OpenType files for all later figures (measurement, SVG
 * font-family and PNG rasterisation). Pass `null` to go back to automatic discovery.
 */
export function setFigureFont(files: { regular: string; bold?: string } | null): FigureFont | null {
  if (files === null) {
    chosen = undefined;
    return figureFont();
  }
  if (typeof files.regular !== "string" || files.regular.length === 0) {
    throw new ValidationError("files.regular", "The regular font file must be a non-empty path.");
  }
  chosen = makeFont(files.regular, files.bold);
  return chosen;
}
