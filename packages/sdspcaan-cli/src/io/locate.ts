/**
 * Where data files are looked for: the library's lookup order (`sdspcaan/node`), which
 * `sdspcaan datasets fetch` fills the cache of.
 */
export {
  type DataDirectory,
  type DataLocation,
  type DataSource,
  dataDirectories,
  defaultCacheDir,
  type LocateOptions,
  locateDataFile,
  repositoryDataDir,
} from "sdspcaan/node";
