#!/usr/bin/env node
/** Executable entry of the `sdspcaan` command (package.json "bin"). */
import { runCli } from "./main.js";
import { guardStandardStreams } from "./standardStreams.js";

const streams = guardStandardStreams();
runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code !== 0 ? code : streams.exitCode;
});
