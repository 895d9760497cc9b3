/**
 * Writes docs/method-options.md: every registered method's options (type, range,
 * default, doc) and grids, generated from the method descriptors, so they are
 * documented once, where they are declared. `npm run docs` runs it (with TypeDoc for
 * the API); test/project/docs.test.ts checks the committed file is up to date.
 *
 *     npx tsx scripts/docs/methodOptions.ts [--check]
 */
import { methodOptionsMarkdown } from "../../packages/sdspcaan/src/methods/optionDocs.js";
import { writeOrCheckGenerated } from "./generatedFile.js";

writeOrCheckGenerated("docs/method-options.md", methodOptionsMarkdown());
