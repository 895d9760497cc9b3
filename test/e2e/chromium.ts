/**
 * A real headless Chromium for the end-to-end tests, through playwright-core (which
 * downloads no browser): Debian's `chromium` package at /usr/bin/chromium, or
 * $SDSPCAAN_CHROMIUM. Without one the tests fail, loudly, unless
 * SDSPCAAN_SKIP_E2E=1 says to skip them.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.SDSPCAAN_CHROMIUM ?? "/usr/bin/chromium";

/** True when the e2e tests may run; throws when they must but cannot. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `No Chromium at ${CHROMIUM}: the playground's end-to-end tests need one. Install Debian's package (apt-get install -y chromium) or set SDSPCAAN_CHROMIUM; set SDSPCAAN_SKIP_E2E=1 to skip them.`;
  if (process.env.SDSPCAAN_SKIP_E2E === "1") {
    process.stderr.write(`\n*** SKIPPING the browser tests (SDSPCAAN_SKIP_E2E=1): ${message}\n\n`);
    return false;
  }
  throw new Error(message);
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile that is removed on close. */
export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "sdspcaan-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
