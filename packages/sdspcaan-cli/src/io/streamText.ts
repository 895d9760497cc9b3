/** Delimited text read as a stream: the library's (`sdspcaan/node`). */
export { type HeaderDecision, peekHeader, streamDataset } from "sdspcaan/node";
