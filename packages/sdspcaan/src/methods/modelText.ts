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

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

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
    const c = text[i];
    if (c === "{" || c === "[") {
      keys.push(c === "[" ? 0 : "");
      expectKey = c === "{";
      depth = Math.max(depth, keys.length);
      i++;
    } else if (c === "}" || c === "]") {
      keys.pop();
      i++;
    } else if (c === ",") {
      const top = keys.length - 1;
      if (typeof keys[top] === "number") keys[top] = (keys[top] as number) + 1;
      else expectKey = true;
      i++;
    } else if (c === ":") {
      expectKey = false;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (expectKey) keys[keys.length - 1] = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      const literal = (NUMBER.exec(text) as RegExpExecArray)[0];
      if (overflow === null && !Number.isFinite(Number(literal))) {
        overflow = { field: pathOf(keys), literal };
      }
      i += literal.length;
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
