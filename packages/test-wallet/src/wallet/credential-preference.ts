import type { ReceivedFrom } from './store-credentials.js';

/**
 * The wallet's order of preference among held credentials: those received from an issuer first (the most recently
 * received first), then the others in the order they were stored. A DCQL query is answered with the first that
 * matches (`respond()`), and `npm run wallet -- credentials` lists them in this order.
 */
export function inPreferenceOrder<T extends { receivedFrom?: ReceivedFrom }>(credentials: readonly T[]): T[] {
  const received = credentials
    .filter((credential) => credential.receivedFrom)
    .sort((a, b) => b.receivedFrom!.receivedAt.localeCompare(a.receivedFrom!.receivedAt));
  return [...received, ...credentials.filter((credential) => !credential.receivedFrom)];
}
