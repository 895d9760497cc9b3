/**
 * The command's data loaders are the library's (`sdspcaan/node`): one implementation
 * for `sdspcaan` users and the command. Importing this module installs the MAT v7.3 /
 * HDF5 reader (sdspcaan-hdf5), which the library leaves to its users. Here
 * `loadDataset` keeps its meaning of a path only (the library's `loadDatasetFile`);
 * `openDataset` takes registry names too.
 */
import "sdspcaan-hdf5";

export { detectFormat } from "sdspcaan/formats";
export {
  asFeatures,
  type LoadedFeatures,
  type LoadOptions,
  listVariables,
  loadDatasetFile as loadDataset,
  loadFeatures,
  loadLabels,
  type OpenedDataset,
  openDataset,
  parseDataset,
  parseDatasetSync,
  parseMat,
  withPredefinedTest,
} from "sdspcaan/node";
