/**
 * `sdspcaan playground`: serves the in-browser playground (the built static page in
 * dist/playground) on 127.0.0.1 and prints its address. The page does all the work
 * in the browser; the server only hands out files, so the same folder can be put on
 * any static host.
 */
import type { Command } from "commander";
import { startPlaygroundServer } from "../playgroundServer.js";
import { exitQuietly, oneLineErrors } from "./commandErrors.js";
import { parseInteger } from "./flags.js";

interface PlaygroundFlags {
  port?: string;
  root?: string;
  dataDir?: string;
  data?: boolean;
}

export function registerPlaygroundCommand(program: Command): void {
  const cmd = program
    .command("playground")
    .description(
      "Serve the in-browser playground on 127.0.0.1 (fit any method on your own data in the browser: progress, cancel, test BCA, embedding plot, model download) and print its address. Ctrl-C stops it.",
    )
    .option("--port <n>", "port to listen on (default: a free port)")
    .option(
      "--data-dir <dir>",
      "also offer the paper's data sets found here (besides $SDSPCAAN_DATA, the repository's data/, ../shared/data, the cache)",
    )
    .option("--no-data", "offer only the data sets built into the page")
    .option("--root <dir>", "serve this built playground folder (default: the one in the package)")
    .action(async (flags: PlaygroundFlags) => {
      const port = parseInteger("--port", flags.port, 0, 65535) ?? 0;
      const server = await startPlaygroundServer({
        port,
        serveData: flags.data !== false,
        ...(flags.root !== undefined ? { root: flags.root } : {}),
        ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
      });
      const sets = server.datasets.length > 0 ? server.datasets.join(", ") : "none";
      process.stdout.write(
        `sdspcaan playground: serving ${server.url} (data sets of the paper: ${sets}). Ctrl-C stops it.\n`,
      );
      // Serves until a signal; then exits as every command does after one (130, 143).
      const code = await new Promise<number>((done) => {
        const stopWith = (exitCode: number) => () => {
          process.off("SIGINT", onInt);
          process.off("SIGTERM", onTerm);
          void server.close().then(() => done(exitCode));
        };
        const onInt = stopWith(130);
        const onTerm = stopWith(143);
        process.on("SIGINT", onInt);
        process.on("SIGTERM", onTerm);
      });
      exitQuietly(code, "stopped by a signal");
    });
  oneLineErrors(cmd);
}
