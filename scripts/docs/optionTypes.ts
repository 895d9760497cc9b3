/**
 * Writes packages/sdspcaan/src/methods/optionTypes.ts: each built-in method's options
 * as the interface users write (`const o: SDSPCAANOptions = { k: 2 }`: every field
 * optional), each field with its declaration's doc, type, range and default as JSDoc,
 * so that an editor's hover shows them; the resolved form (`ResolvedSDSPCAANOptions`,
 * a model's `params`); and, in methodRegistry.ts beside it, `MethodRegistry`, the
 * method names `createMethod` and `fitInWorker` accept with their options and classes.
 * Generated from the method declarations, so each option is declared once (its spec in the method's file);
 * `npm run docs` runs it, `npm run docs:check` (CI) fails when a file is stale, and
 * packages/sdspcaan/test/types checks that the interfaces are the declarations' types.
 *
 *     npx tsx scripts/docs/optionTypes.ts [--check]
 */

import { writeOrCheckGenerated } from "./generatedFile.js";
import { optionTypesSource } from "./optionTypesSource.js";

for (const [file, text] of Object.entries(optionTypesSource())) {
  writeOrCheckGenerated(`packages/sdspcaan/src/methods/${file}`, text);
}
