import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tessera/platform';
import type { ClientConfig } from '../config.js';
import { ClientRegistry } from './client-registry.js';
import { ClientSecretVerifier, hashClientSecret, parseStoredSecret } from './client-secret.js';

const app = (extra: Record<string, unknown> = {}) =>
  ({
    'client-secret': '{plain}app-secret',
    'redirect-uris': ['https://app.example/callback'],
    'grant-types': ['authorization_code', 'refresh_token'],
    scopes: ['openid'],
    ...extra,
  }) as unknown as ClientConfig;

/** The key a ConfigError names, or the error itself when the registry did not refuse with one. */
function refusedKey(entries: Record<string, ClientConfig>, production = false): string | unknown {
  try {
    new ClientRegistry(entries, 'demo', { production });
    return 'accepted';
  } catch (error) {
    return error instanceof ConfigError ? error.key : error;
  }
}

describe('client registry (000 §2.8)', () => {
  it('reads a client with the defaults of its token settings', () => {
    const client = new ClientRegistry({ app: app() }, 'demo').find('demo', 'app')!;
    expect(client).toMatchObject({ clientId: 'app', tenantId: 'demo', redirectUris: ['https://app.example/callback'] });
    expect(client.accessTokenTtlSeconds).toBe(3600);
    expect(client.refreshTokenTtlSeconds).toBe(86_400);
  });

  it('refuses, naming the key: no encoder prefix, PKCE off, a fragment, client_credentials without a secret', () => {
    expect(refusedKey({ app: app({ 'client-secret': 'bare' }) })).toBe('tokenService.clients.app.client-secret');
    expect(refusedKey({ app: app({ 'token-settings': { 'require-pkce': false } }) })).toBe(
      'tokenService.clients.app.token-settings.require-pkce',
    );
    expect(refusedKey({ app: app({ 'redirect-uris': ['https://app.example/cb#x'] }) })).toBe(
      'tokenService.clients.app.redirect-uris',
    );
    expect(
      refusedKey({
        svc: app({ 'client-secret': undefined, 'grant-types': ['client_credentials'], 'redirect-uris': [] }),
      }),
    ).toBe('tokenService.clients.svc');
  });

  it('under production a {plain} secret is refused and an {argon2} hash is taken', async () => {
    expect(refusedKey({ app: app() }, true)).toBe('tokenService.clients.app.client-secret');
    const stored = await hashClientSecret('app-secret');
    expect(stored).toMatch(/^\{argon2\}\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    expect(refusedKey({ app: app({ 'client-secret': stored }) }, true)).toBe('accepted');
    // A public client (no secret) stays possible under production.
    expect(refusedKey({ spa: app({ 'client-secret': undefined }) }, true)).toBe('accepted');
    const verifier = new ClientSecretVerifier(0);
    expect(await verifier.verify(parseStoredSecret(stored), 'app-secret')).toBe(true);
    expect(await verifier.verify(parseStoredSecret(stored), 'app-secret ')).toBe(false);
    // A fresh salt each time.
    expect(await hashClientSecret('app-secret')).not.toBe(stored);
    await expect(hashClientSecret('')).rejects.toThrow(/empty/);
  });
});
