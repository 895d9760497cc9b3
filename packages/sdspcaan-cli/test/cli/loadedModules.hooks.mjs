// Resolve hook for startupModules.test.ts: appends every module URL the process loads to
// the file named by SDSPCAAN_TEST_MODULES_FILE.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.SDSPCAAN_TEST_MODULES_FILE, `${result.url}\n`);
  return result;
}
