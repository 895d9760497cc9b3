/** Input files of every command: the library's checks and readers (`sdspcaan/node`). */
export {
  checkInputFileSync,
  checkInputStats,
  MAX_JSON_BYTES,
  type OpenedInput,
  openInputFile,
  readAt,
  readInputFile,
  readInputFileSync,
} from "sdspcaan/node";
