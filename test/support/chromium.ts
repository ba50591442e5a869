// Headless Chromium as the tests start it: the system's build (TOOLCHAIN: `CHROMIUM_PATH`, or
// /usr/bin/chromium, which `npm test` installs), without the services a test page never needs.
import { type Browser, chromium } from 'playwright-core';

/** Where the Chromium the tests drive is. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Starts a headless Chromium; the caller closes it (`browser.close()`) when its file ends.
 * A start is a second or two of CPU: start one per file and open a context per test.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
