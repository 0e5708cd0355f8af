import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '@tessera/platform/testing';

/** Chromium headless, with nothing that talks to the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** test-artifacts/screenshots at the repository root (ignored by git). */
export const SCREENSHOT_ROOT = fileURLToPath(new URL('../../../../../test-artifacts/screenshots/', import.meta.url));

/**
 * One browser per test file; every test gets a fresh context (its own cookies and storage). The machine's Chromium,
 * else the packaged one (support/chromium-binary.ts).
 */
export async function launchChromium(): Promise<Browser> {
  const { executablePath, args } = await findChromium(CHROMIUM_ARGS);
  return chromium.launch({ executablePath, args });
}

export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);

export interface BrowserTest {
  context: BrowserContext;
  page: Page;
  /** Folder of this test's screenshots. */
  folder: string;
  /** Saves a full-page screenshot as <nn>-<step>.png and answers its path. */
  shot(step: string): Promise<string>;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Accept-Language of every request, e.g. `de-DE,de;q=0.9,en;q=0.5`. */
  acceptLanguage?: string;
  /** navigator.language and Chromium's own Accept-Language; not applied when acceptLanguage is given. */
  locale?: string;
  /** Default 1024 × 800; 360 wide for the small-screen checks. */
  viewport?: { width: number; height: number };
}

/** A fresh context and page for one test, with numbered screenshots under test-artifacts/screenshots/<test>/. */
export async function newBrowserTest(
  browser: Browser,
  testName: string,
  options: ContextOptions = {},
): Promise<BrowserTest> {
  // A context locale makes Chromium send its own Accept-Language, so a header given as written goes without one.
  const context = await browser.newContext({
    ...(options.acceptLanguage ? {} : { locale: options.locale ?? 'en-GB' }),
    viewport: options.viewport ?? { width: 1024, height: 800 },
    ...(options.acceptLanguage ? { extraHTTPHeaders: { 'accept-language': options.acceptLanguage } } : {}),
  });
  const page = await context.newPage();
  // Below the test timeout, so that a wait that fails names its step instead of timing the whole test out.
  page.setDefaultTimeout(15_000);
  const folder = `${SCREENSHOT_ROOT}${slug(testName)}`;
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  let n = 0;
  return {
    context,
    page,
    folder,
    async shot(step) {
      n += 1;
      const file = `${folder}/${String(n).padStart(2, '0')}-${slug(step)}.png`;
      await writeFile(file, await page.screenshot({ fullPage: true }));
      return file;
    },
    close: () => context.close(),
  };
}
