import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A screenshot was written and is a PNG image. */
export async function expectPng(file: string): Promise<void> {
  const bytes = await readFile(file);
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE), file).toBe(true);
  expect(bytes.length).toBeGreaterThan(1000);
}

/** The id of the element that has the keyboard focus. */
export const focusedId = async (page: Page) =>
  (await page.locator(':focus').count()) === 1 ? ((await page.locator(':focus').getAttribute('id')) ?? '') : '';

/** Waits until the page's status line shows `state` (its data-state attribute, set by /assets/signin.js). */
export const waitForState = (page: Page, state: string) =>
  page.locator(`#status-text[data-state="${state}"]`).waitFor();

/** Width of the laid-out page, to check that nothing makes it scroll sideways. */
export const pageWidth = async (page: Page) => Number(await page.evaluate('document.documentElement.scrollWidth'));

/** Presses Tab until the element with `id` has the focus; fails after `limit` presses. */
export async function tabTo(page: Page, id: string, limit = 10): Promise<number> {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    if ((await focusedId(page)) === id) return presses;
  }
  throw new Error(`#${id} was not reached with ${limit} presses of Tab`);
}

/** The login transaction the portal keeps in its cookie (readable by a test: it is signed, not encrypted). */
export async function portalTransaction(
  context: BrowserContext,
): Promise<{ id: string; sessionId: string; params: Record<string, string> }> {
  const cookie = (await context.cookies()).find((c) => c.name === 'tessera-signin');
  if (!cookie) throw new Error('no portal cookie');
  return JSON.parse(Buffer.from(cookie.value.split('.')[1]!, 'base64url').toString('utf8')) as {
    id: string;
    sessionId: string;
    params: Record<string, string>;
  };
}
