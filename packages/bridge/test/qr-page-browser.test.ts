import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '@tessera/platform/testing';
import { ManualClock } from '@tessera/platform';
import { bearer, buildBridgeApp, startTestBed, type BridgeApp, type BridgeTestBed } from './support/bridge-app.js';

const HOUR_MS = 3_600_000;

/**
 * The standalone QR page (000 §4.1 qrPageUri) in headless Chromium, with the browser's wall clock set wrong: the
 * page counts the session's remaining time, given by the server, on the browser's monotonic clock, so a browser
 * clock that runs ahead does not show a live code as expired, and one that runs behind still shows the expiry when
 * the status can no longer be polled.
 */
describe('QR page in a browser whose clock is wrong', () => {
  let bed: BridgeTestBed;
  let b: BridgeApp;
  let browser: Browser;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    bed = await startTestBed('pglite');
    b = await buildBridgeApp(bed.t.platform, { clock, listen: true });
    const { executablePath, args } = await findChromium([
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ]);
    browser = await chromium.launch({ executablePath, args });
  });
  afterAll(async () => {
    await browser?.close();
    await b?.close();
    await bed?.close();
  });

  async function newSession(): Promise<string> {
    clock.set(new Date());
    const res = await b.app.inject({
      method: 'POST',
      url: '/auth/oid4vp/sessions',
      headers: bearer(bed.portalToken),
      payload: { queryId: 'wallet-login' },
    });
    expect(res.statusCode).toBe(200);
    return `${b.url}${(res.json() as { qrPageUri: string }).qrPageUri}`;
  }

  /** A page whose Date runs `offsetMs` away from the real time (performance.now is left alone, as it is real). */
  async function pageWithClockOffset(offsetMs: number): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext();
    await context.addInitScript((offset: number) => {
      const realNow = Date.now.bind(Date);
      Date.now = () => realNow() + offset;
    }, offsetMs);
    return { page: await context.newPage(), close: () => context.close() };
  }

  const shownStatus = (page: Page) => page.locator('#status').getAttribute('data-status');

  it('a browser clock an hour ahead keeps polling a live session and shows its status', async () => {
    const qrPage = await newSession();
    const { page, close } = await pageWithClockOffset(HOUR_MS);
    try {
      expect(await page.evaluate(() => Date.now() - performance.timeOrigin - performance.now())).toBeGreaterThan(
        HOUR_MS - 60_000,
      );
      await page.goto(qrPage);
      const polled = await page.waitForResponse((response) => response.url().endsWith('/status'), {
        timeout: 20_000,
      });
      expect(await polled.json()).toEqual({ status: 'CREATED' });
      expect(await shownStatus(page)).toBe('CREATED');
    } finally {
      await close();
    }
  });

  it('a browser clock an hour behind shows the expiry by itself when the status cannot be polled', async () => {
    const qrPage = await newSession();
    // One second before the session's end (sessionTimeoutSeconds, 300 s by default) on the server's clock.
    clock.advance(299);
    const { page, close } = await pageWithClockOffset(-HOUR_MS);
    try {
      await page.route('**/status', (route) => route.abort('internetdisconnected'));
      await page.goto(qrPage);
      expect(await shownStatus(page)).toBe('CREATED');
      await page.locator('#status[data-status="EXPIRED"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#status').textContent()).toMatch(/expired/i);
    } finally {
      await close();
    }
  });
});
