/**
 * Messages between the page (main.ts) and its worker (worker.ts). The data set and
 * the fitted models live in the worker; the page gets summaries, progress and what
 * it draws. Every request carries an id that its answer repeats.
 */
import type { FitInfo, FitProgress, ModelJSON } from "sdspcaan";

/** Reading options a user can set on the page (a subset of ParseOptions). */
export interface ReadOptions {
  readonly xVar?: string;
  readonly yVar?: string;
  readonly labelColumn?: string;
}

/** A registry data set the page can offer (datasets.json, written by the CLI's server). */
export type { ManifestEntry } from "sdspcaan/formats";

export interface SplitSettings {
  readonly seed: number;
  readonly repeat: number;
  readonly stratify: boolean;
  readonly preprocess: "train-zscore" | "dataset-zscore" | "none";
}

export type Request =
  | {
      readonly type: "load";
      readonly id: number;
      /** The file's name: messages name it, and its extension tells CSV from TSV. */
      readonly file: string;
      /** The data set's name, which seeds the split (registry name or file name without extension). */
      readonly name: string;
      readonly bytes: ArrayBuffer;
      readonly options: ReadOptions;
      /**
       * A separate labels file (one label per line, a 1-D .npy or an idx1 file), as the library's
       * `labelsFile`: the data file then holds X only. For formats that keep the
       * labels apart, such as IDX image and label files.
       */
      readonly labels: { readonly file: string; readonly bytes: ArrayBuffer } | null;
    }
  | {
      readonly type: "fit";
      readonly id: number;
      readonly method: string;
      readonly options: Record<string, unknown>;
      readonly split: SplitSettings;
      /**
       * One Int32 the page sets to 1 to cancel (only where SharedArrayBuffer is
       * available, i.e. the page is cross-origin isolated); otherwise the page
       * cancels by terminating the worker.
       */
      readonly cancel: SharedArrayBuffer | null;
    }
  | {
      readonly type: "loadModel";
      readonly id: number;
      readonly file: string;
      readonly text: string;
    }
  | {
      readonly type: "embed";
      readonly id: number;
      readonly file: string;
      readonly bytes: ArrayBuffer;
      readonly options: ReadOptions;
    };

export interface DatasetSummary {
  readonly file: string;
  readonly name: string;
  readonly format: string;
  readonly rows: number;
  readonly cols: number;
  readonly xVar: string | null;
  readonly yVar: string | null;
  readonly transposed: boolean;
  /** Class labels (as text) with their counts, in sorted label order. */
  readonly classes: readonly { readonly label: string; readonly count: number }[];
}

/** A 2-D (or 1-D) picture of an embedding: the first two components of each row. */
export interface Embedding2D {
  /** Row-major rows x dims values of the first `dims` components. */
  readonly points: Float64Array;
  readonly dims: number;
  /** Index of each row in the file (0-based). */
  readonly sampleIndex: Int32Array;
  /** Label text of each row, or null without labels. */
  readonly labels: readonly string[] | null;
}

export interface FitResult {
  readonly method: string;
  readonly displayName: string;
  readonly params: Record<string, unknown>;
  readonly dataset: string;
  readonly sizes: { readonly train: number; readonly val: number; readonly test: number };
  readonly split: SplitSettings;
  readonly valBCA: number;
  readonly testBCA: number;
  readonly outputDim: number;
  readonly fitInfo: FitInfo;
  readonly embedding: Embedding2D;
  /** The first rows of the test embedding (all components), for checking against Node. */
  readonly firstTestRows: readonly (readonly number[])[];
  readonly model: ModelJSON;
}

export interface ModelSummary {
  readonly file: string;
  readonly method: string;
  readonly displayName: string;
  readonly nFeaturesIn: number;
  readonly outputDim: number;
  readonly preprocessing: string | null;
  readonly classes: readonly string[] | null;
}

export interface EmbedResult {
  readonly file: string;
  readonly rows: number;
  readonly cols: number;
  readonly embedding: Embedding2D;
  /** The full embedding as CSV text (one row per sample, k columns). */
  readonly csv: string;
}

/**
 * A failed request's error. `argument` (a ValidationError's option or argument, e.g.
 * "k" or "labelColumn") and `file` (a DataFormatError's file) let the page show the
 * message beside the field it is about.
 */
export interface ErrorPayload {
  readonly name: string;
  readonly message: string;
  readonly argument?: string;
  readonly file?: string;
}

export type Response =
  | { readonly type: "loaded"; readonly id: number; readonly summary: DatasetSummary }
  | { readonly type: "progress"; readonly id: number; readonly progress: FitProgress }
  | { readonly type: "fitted"; readonly id: number; readonly result: FitResult }
  | { readonly type: "modelLoaded"; readonly id: number; readonly model: ModelSummary }
  | { readonly type: "embedded"; readonly id: number; readonly result: EmbedResult }
  | {
      readonly type: "error";
      readonly id: number;
      readonly error: ErrorPayload;
    };
