/**
 * A model file as a whole, before its fields are read: its size, a byte-order mark,
 * how deep it nests, and numbers a double cannot hold. JSON.parse alone would show a
 * byte-order mark as an invisible "Unexpected token", read 1e999 as Infinity (which
 * the field checks then quote as JSON's null), and leave a file nested thousands
 * deep to overflow the stack later (JSON.stringify recurses). Each is refused here
 * with the limit or the field named; nothing here recurses.
 */
import { formatBytes } from "../formats/limits.js";

/** The most a model file's text may hold, in characters (bytes, for the ASCII JSON toJSON writes). */
export const MAX_MODEL_BYTES = 256 * 1024 * 1024;

/** The deepest a model file may nest arrays and objects (toJSON writes at most 5, a pipeline). */
export const MAX_MODEL_DEPTH = 64;

/** Reports a problem of the document (`field` "" for the whole of it) and does not return. */
export type ModelTextFail = (field: string, problem: string) => never;

function depthProblem(depth: string): string {
  return `nested ${depth} deep; a model file nests at most ${MAX_MODEL_DEPTH} levels`;
}

/** A path into the JSON as the field checks name it: "components.data[3]". */
function pathOf(keys: readonly (string | number)[]): string {
  let path = "";
  for (const k of keys) path += typeof k === "number" ? `[${k}]` : path === "" ? k : `.${k}`;
  return path;
}

/** Digits, ".", "+", "-", "e" and "E": what a JSON number is written with. */
function isNumberChar(d: number): boolean {
  return (
    (d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x2b || d === 0x2d || d === 0x65 || d === 0x45
  );
}

/**
 * Walks valid JSON text once, keeping the path to where it is: the deepest nesting,
 * and the first number literal that is not a finite double, with its path.
 */
function scan(text: string): {
  depth: number;
  overflow: { field: string; literal: string } | null;
} {
  const keys: (string | number)[] = [];
  let depth = 0;
  let expectKey = false;
  let overflow: { field: string; literal: string } | null = null;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      // "{" or "["
      keys.push(c === 0x5b ? 0 : "");
      expectKey = c === 0x7b;
      depth = Math.max(depth, keys.length);
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      keys.pop();
      i++;
    } else if (c === 0x2c) {
      // ","
      const top = keys.length - 1;
      if (typeof keys[top] === "number") keys[top] = (keys[top] as number) + 1;
      else expectKey = true;
      i++;
    } else if (c === 0x3a) {
      // ":"
      expectKey = false;
      i++;
    } else if (c === 0x22) {
      // A string: its end is the first quote not escaped.
      let j = i + 1;
      for (let d = text.charCodeAt(j); d !== 0x22; d = text.charCodeAt(j)) j += d === 0x5c ? 2 : 1;
      if (expectKey) keys[keys.length - 1] = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // A number (the text is valid JSON): only one with an exponent or over 308
      // digits can be beyond a double.
      let j = i + 1;
      let exponent = false;
      for (let d = text.charCodeAt(j); isNumberChar(d); d = text.charCodeAt(++j)) {
        if (d === 0x65 || d === 0x45) exponent = true;
      }
      if (overflow === null && (exponent || j - i > 308)) {
        const literal = text.slice(i, j);
        if (!Number.isFinite(Number(literal))) overflow = { field: pathOf(keys), literal };
      }
      i = j;
    } else i++;
  }
  return { depth, overflow };
}

/**
 * Parses a model file's text: refuses more than `maxBytes` characters, drops a UTF-8
 * byte-order mark, refuses nesting deeper than MAX_MODEL_DEPTH and number literals
 * beyond double precision (naming the field and quoting the literal).
 */
export function parseModelText(
  text: string,
  fail: ModelTextFail,
  maxBytes = MAX_MODEL_BYTES,
): unknown {
  if (text.length > maxBytes) {
    fail(
      "",
      `${formatBytes(text.length)} of JSON; a model file holds at most ${formatBytes(maxBytes)}`,
    );
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    fail("", `the JSON does not parse (${(err as Error).message})`);
  }
  const { depth, overflow } = scan(body);
  if (depth > MAX_MODEL_DEPTH) fail("", depthProblem(String(depth)));
  if (overflow !== null) {
    fail(overflow.field, `is not a finite number: ${overflow.literal}`);
  }
  return value;
}

/**
 * Refuses a model given as a value (parsed already) nested deeper than
 * MAX_MODEL_DEPTH, without recursing (and so also ending on a cyclic object).
 */
export function checkModelDepth(value: unknown, fail: ModelTextFail): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    if (depth === MAX_MODEL_DEPTH) fail("", depthProblem(`more than ${MAX_MODEL_DEPTH}`));
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
}
