/**
 * Names in the Markdown reports (table.md, statistics.md): a data set's name comes
 * from its file's name, so it may hold anything a file name may. Written as it is,
 * a `|` adds a column to a table row, a line break ends the row or the list item, a
 * leading `#`, `>`, `-` or `1.` starts a heading, quote or list, and `<b`, `&lt;`,
 * `*`, `[`, `` ` `` turn into HTML, characters, emphasis, links or code.
 */

/** Control and line-break characters: no Markdown line can hold them. */
function lineBreaking(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029;
}

/**
 * `text` as Markdown that shows it as it is, in a table cell or anywhere in a line:
 * a backslash before the punctuation CommonMark and GitHub's tables would read (`\`,
 * `|`, `` ` ``, `*`, `[`, `]`, `~`; `_` unless inside a word, where it is no
 * emphasis; `<` where it could open a tag, `&` where it could start an entity; `#`,
 * `>`, `+`, `-`, `=` and a number's `.` or `)` at the start), and control and
 * line-break characters written as their code points (U+000A), which no Markdown
 * line can hold. Plain names come out unchanged.
 */
export function markdownText(text: string): string {
  let out = "";
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    out += lineBreaking(c) ? `U+${c.toString(16).toUpperCase().padStart(4, "0")}` : ch;
  }
  return out
    .replace(
      /[\\|`*[\]~]|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g,
      "\\$&",
    )
    .replace(/^([#>+=-]|\d+(?=[.)]))/, (m) => (/^\d/.test(m) ? `${m}\\` : `\\${m}`));
}
