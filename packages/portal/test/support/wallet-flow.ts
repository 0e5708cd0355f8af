import type { TestWallet } from '@tessera/test-wallet';
import { HttpClient } from '@tessera/platform/testing';
import { attributeOf } from './html.js';
import type { Stack } from './stack.js';

/**
 * Runs the portal to a verified, completed wallet session (the relying party's wallet button, the wallet's answer,
 * the page's poll) and answers the browser and the /authorize URL the portal sends it on to.
 */
export async function completedWalletSession(
  stack: Stack,
  wallet: TestWallet,
): Promise<{ client: HttpClient; next: URL }> {
  const client = new HttpClient();
  const start = await client.follow(`${stack.rp.url}/login/wallet`, undefined, { method: 'POST' });
  const page = await start.response!.text();
  await wallet.respond(attributeOf(page, 'open-in-wallet', 'href')!);
  const answer = (await (
    await client.request(`${stack.portal.url}${attributeOf(page, 'status', 'data-poll-url')}`)
  ).json()) as { next: string };
  return { client, next: new URL(answer.next) };
}
