#!/usr/bin/env node
/** Executable entry of the `sdspcaan` command (package.json "bin"). */
import { runCli } from "./main.js";

runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
