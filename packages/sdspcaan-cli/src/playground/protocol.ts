/**
 * Requests from the page (main.ts) to its worker (worker.ts) and their answers. The
 * data set and the models live in the worker; the page gets summaries, progress and
 * what it draws. They travel through the library's worker channel (sdspcaan/worker:
 * ids, progress, cancel, errors as the library's classes).
 */
import type { FitInfo, ModelJSON } from "sdspcaan";

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
      readonly method: string;
      readonly options: Record<string, unknown>;
      readonly split: SplitSettings;
    }
  | {
      readonly type: "loadModel";
      readonly file: string;
      readonly text: string;
    }
  | {
      readonly type: "embed";
      readonly file: string;
      readonly bytes: ArrayBuffer;
      readonly options: ReadOptions;
    }
  /** The loaded pipeline's labels for the loaded data set (the data step's). */
  | { readonly type: "predict" };

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
  /** A saved Pipeline (which can predict, with its reference set) or a method's model. */
  readonly kind: "pipeline" | "model";
  /** Whether it predicts: a pipeline saved with its classifier's reference set. */
  readonly canPredict: boolean;
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

export interface PredictResult {
  /** The data set's file and its number of samples. */
  readonly file: string;
  readonly rows: number;
  /** Balanced accuracy of the predictions against the data set's labels. */
  readonly bca: number;
}

/** The answer to each request type. */
export interface Answers {
  readonly load: DatasetSummary;
  readonly fit: FitResult;
  readonly loadModel: ModelSummary;
  readonly embed: EmbedResult;
  readonly predict: PredictResult;
}
