/** Counted nouns in messages: "1 fit", "3 fits". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
