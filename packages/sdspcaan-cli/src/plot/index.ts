export { type BcaAtK, type BcaVersusKOptions, bcaVersusKFigure } from "./bcaVersusK.js";
export {
  type CriticalDifferenceOptions,
  criticalDifferenceDiagram,
  type RankedMethod,
} from "./criticalDifference.js";
export {
  type EmbeddingPoints,
  type EmbeddingScatterOptions,
  embeddingScatter,
  type SplitName,
} from "./embedding.js";
export {
  type FigureFont,
  type FontMetrics,
  figureFont,
  readFontMetrics,
  setFigureFont,
} from "./fonts.js";
export {
  compileFigure,
  figureFontFamily,
  type PngOptions,
  type RenderDiagnostics,
  renderSvg,
  svgToPng,
  type VegaLiteSpec,
  type WrittenFigure,
  writeFigure,
} from "./render.js";
export {
  type PairCell,
  type ParameterGridCell,
  type ProfilePlotPoint,
  reduceSensitivityGrid,
  type SensitivityGridOptions,
  type SensitivityHeatmapOptions,
  type SensitivityPanels,
  type SensitivityProfileOptions,
  sensitivityHeatmapPanels,
  sensitivityHeatmaps,
  sensitivityProfiles,
  type ThirdParameterReduction,
} from "./sensitivity.js";
