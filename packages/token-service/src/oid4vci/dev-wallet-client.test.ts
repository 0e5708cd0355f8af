import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tessera/platform';
import type { ClientConfig } from '../config.js';
import { ClientRegistry, DEV_WALLET_CLIENT_ID } from '../clients/client-registry.js';

const wallet = {
  'redirect-uris': ['http://127.0.0.1/wallet-callback'],
  'grant-types': ['authorization_code'],
  scopes: ['openid'],
} as unknown as ClientConfig;

/** The development wallet client (issue 19): a public client of the development profile, refused in production. */
describe('development wallet client', () => {
  it('is a public client outside production', () => {
    const client = new ClientRegistry({ [DEV_WALLET_CLIENT_ID]: wallet }, 'demo').find('demo', DEV_WALLET_CLIENT_ID);
    expect(client).toMatchObject({ clientId: DEV_WALLET_CLIENT_ID, secret: null });
  });

  it('is refused under NODE_ENV=production, whatever key names it', () => {
    expect(() => new ClientRegistry({ [DEV_WALLET_CLIENT_ID]: wallet }, 'demo', { production: true })).toThrow(
      ConfigError,
    );
    expect(
      () =>
        new ClientRegistry({ other: { ...wallet, 'client-id': DEV_WALLET_CLIENT_ID } as ClientConfig }, 'demo', {
          production: true,
        }),
    ).toThrow(/refused under NODE_ENV=production/);
  });
});
