/**
 * How a user's string goes into the text of a job script, job list or manifest, one
 * rule per format, so that it reaches the program as the very same string and never
 * becomes code or structure (a newline in `--out` once became a live line of the
 * Slurm script):
 *
 * - Line breaks and other control characters cannot be quoted in all of these
 *   formats (GNU parallel's list is one job per line; a comment ends at a newline;
 *   Kubernetes' YAML 1.1 reader also breaks lines at U+0085, U+2028 and U+2029), and
 *   no file or directory name needs them: `refusedCharacter` finds them, and the
 *   scripts refuse the string with the flag that gave it.
 * - A word of a shell command: `shellQuote` (POSIX single quotes).
 * - The value of an `#SBATCH` line, which sbatch reads itself, without a shell:
 *   `slurmDirectiveValue`.
 * - A YAML scalar: `yamlString`, a double-quoted scalar that escapes whatever YAML
 *   does not take as printable.
 */

/** Names of the refused characters users are likely to meet. */
const CHARACTER_NAMES: Readonly<Record<number, string>> = {
  0: "a NUL character",
  9: "a tab",
  10: "a line feed",
  13: "a carriage return",
  27: "an escape character",
  127: "a delete character",
  133: "a next-line character",
  8232: "a line separator",
  8233: "a paragraph separator",
};

/**
 * C0 and C1 control characters (NUL, tab, CR and LF among them), DEL, the Unicode
 * line and paragraph separators, and unpaired surrogates (not text; no file name
 * read from Node has them).
 */
function refused(c: number): boolean {
  return (
    c <= 0x1f ||
    (c >= 0x7f && c <= 0x9f) ||
    c === 0x2028 ||
    c === 0x2029 ||
    (c >= 0xd800 && c <= 0xdfff)
  );
}

/** U+000A. */
function codePoint(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * What in `text` no job script can hold, in words ("a line feed (U+000A)"), or null
 * when there is nothing.
 */
export function refusedCharacter(text: string): string | null {
  // for-of walks code points; an unpaired surrogate comes as itself.
  let c = -1;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (refused(code)) {
      c = code;
      break;
    }
  }
  if (c < 0) return null;
  const name =
    CHARACTER_NAMES[c] ??
    (c >= 0xd800 && c <= 0xdfff ? "an unpaired surrogate" : "a control character");
  return `${name} (${codePoint(c)})`;
}

/**
 * Quotes a word for a POSIX shell: bare when it holds only characters no shell
 * treats specially (and does not look like a variable assignment, which a shell
 * would take as one in a command's first place), else in single quotes, in which
 * nothing is special but the quote itself, written as '\''.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)
    ? word
    : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The value of an `#SBATCH --option=value` line. sbatch splits these lines itself
 * (get_argument in Slurm's proc_args.c; sbatch/opt.c before 20.02): whitespace
 * ends a value unless quoted, ' and " quote (only " in old versions), a backslash
 * takes the next character as it is, also inside quotes, an unquoted # ends the line
 * (in old versions even a quoted one), and the first "packjob" of the line, in any
 * case, is blanked out. So a value that is not plain goes in double quotes with a
 * backslash before \ " ' # and before the j of every "packjob": every version reads
 * that back as the value. Line breaks cannot be quoted; refusedCharacter finds them.
 */
export function slurmDirectiveValue(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value) && !/packjob/i.test(value)) return value;
  const escaped = value.replace(/[\\"'#]/g, "\\$&").replace(/(pack)(job)/gi, "$1\\$2");
  return `"${escaped}"`;
}

/**
 * A YAML double-quoted scalar that every YAML reader reads back as `text`: JSON's
 * escapes (valid YAML), and \u escapes for what YAML does not count as printable or
 * YAML 1.1 takes as a line break (DEL, C1 controls, U+2028, U+2029, U+FEFF, U+FFFE,
 * U+FFFF), which JSON leaves as they are.
 */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}
