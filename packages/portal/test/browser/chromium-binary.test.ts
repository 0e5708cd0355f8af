import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './support/browser.js';
import { findChromium } from '@tessera/platform/testing';

/**
 * `npm install && npm test` on a machine without a system Chromium (issue 14 §10): the browser tests then drive the
 * Chromium build of the @sparticuz/chromium devDependency. Here the machine's paths are hidden from the lookup.
 */
describe('the browser the tests drive', () => {
  it('without CHROMIUM_PATH and without a system Chromium: the packaged build, which launches and renders', async () => {
    const binary = await findChromium(CHROMIUM_ARGS, { env: {}, systemPaths: [] });
    expect(binary.source).toBe('package');
    expect(binary.args.filter((arg) => arg.startsWith('--headless'))).toHaveLength(1);
    const browser = await chromium.launch({ executablePath: binary.executablePath, args: binary.args });
    try {
      const page = await browser.newPage();
      await page.setContent('<main><h1>Tessera</h1></main>');
      expect(await page.textContent('h1')).toBe('Tessera');
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('CHROMIUM_PATH wins, then the system paths', async () => {
    expect(await findChromium([], { env: { CHROMIUM_PATH: '/opt/chrome' }, systemPaths: [] })).toMatchObject({
      executablePath: '/opt/chrome',
      source: 'environment',
    });
    expect(await findChromium([], { env: {}, systemPaths: ['/nonexistent', process.execPath] })).toMatchObject({
      executablePath: process.execPath,
      source: 'system',
    });
  });
});
