/** The paper's data sets: the library's registry (`sdspcaan/node`). */
export {
  type CompanionFile,
  DATASETS,
  type DatasetEntry,
  datasetAtPath,
  datasetNames,
  findDataset,
  type PredefinedTestFiles,
} from "sdspcaan/node";
