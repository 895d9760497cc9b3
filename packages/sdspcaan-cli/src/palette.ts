/**
 * Class colours shared by the figures (src/plot/, vega-lite) and the playground's
 * canvas plots, so that a class has the same colour in both.
 */

/** Tableau 10: the default categorical palette, distinct in colour and in grey. */
export const TABLEAU10: readonly string[] = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];
