// Headless Chromium (Debian's /usr/bin/chromium) for the browser tests, driven by playwright-core.
// Without it those tests are skipped, unless REQUIRE_BROWSER=1 (CI installs it), which makes its
// absence an error.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === "1") throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install chromium`);

/** A headless Chromium with nothing of its own on the network (no updates, sync or background fetches). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
