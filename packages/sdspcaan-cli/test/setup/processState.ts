/**
 * Setup file of the command's shared test project (vitest.shared.ts): every file must
 * leave the process-wide state as it found it (guardProcessState): the library's, and
 * the figure font.
 */
// The command's own state: its file reader (io/load.ts) installs the HDF5 reader on load.
import "sdspcaan-hdf5";
import { guardProcessState } from "sdspcaan-test-support";
import { figureFont, setFigureFont } from "#internal/plot/fonts.js";
import { libraryProbes } from "../../../sdspcaan/test/setup/libraryState.js";

guardProcessState([
  ...libraryProbes,
  {
    name: "the figure font (setFigureFont)",
    read: () => {
      const font = figureFont();
      return font === null ? null : { regular: font.regularFile, bold: font.boldFile ?? null };
    },
    // Back to the font found automatically, the default.
    restore: () => setFigureFont(null),
  },
]);
