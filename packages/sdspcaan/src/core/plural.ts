/** Counted nouns in messages: "1 class", "3 classes" (the CLI has its own for its words). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
