import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import type { TestIssuer, TestWallet } from '@tessera/test-wallet';
import { bridgeSettings, createIssuerAndWallet, seedIdentity } from './support/holder.js';
import { startStack, type Stack } from './support/stack.js';
import { HttpClient } from '@tessera/platform/testing';
import { completedWalletSession } from './support/wallet-flow.js';

/**
 * Issue 3: "A completed wallet session's id replayed in a second authorization request (another client, another
 * code_challenge, or the same request again) gets no code." Knowing a session id is never enough: the bridge
 * redeems a completed session once, within its window, and only for the request it was started for.
 */
describe.each([1, 2] as const)(
  'a completed wallet session cannot be replayed (postgres, %i replica(s))',
  (replicas) => {
    let stack: Stack;
    let issuer: TestIssuer;
    let wallet: TestWallet;

    beforeAll(async () => {
      ({ issuer, wallet } = await createIssuerAndWallet());
      stack = await startStack({
        kind: 'postgres',
        replicas,
        bridge: bridgeSettings(issuer),
        extraClients: {
          'other-rp': {
            'client-secret': '{plain}other-rp-secret',
            'redirect-uris': ['http://127.0.0.1:8401/callback'],
            'grant-types': ['authorization_code'],
            scopes: ['openid'],
          },
        },
      });
      await seedIdentity(stack.platform, stack.identities);
    });
    afterAll(async () => {
      await stack?.close();
      await issuer?.close();
    });

    const completedSession = () => completedWalletSession(stack, wallet);

    const outcome = async (client: HttpClient, url: URL, stopAt: string) => {
      const end = await client.follow(url.href, stopAt);
      return new URL(end.url).searchParams;
    };

    it('the same request again gets no second code', async () => {
      const { client, next } = await completedSession();
      const first = await outcome(client, next, stack.rp.redirectUri);
      expect(first.get('code')).toBeTruthy();
      const again = await outcome(new HttpClient(), next, stack.rp.redirectUri);
      expect(again.get('code')).toBeNull();
      expect(again.get('error')).toBe('access_denied');
    });

    it('another client gets no code', async () => {
      const { next } = await completedSession();
      const foreign = new URL(next);
      const verifier = randomBytes(32).toString('base64url');
      foreign.searchParams.set('client_id', 'other-rp');
      foreign.searchParams.set('redirect_uri', 'http://127.0.0.1:8401/callback');
      foreign.searchParams.set('scope', 'openid');
      foreign.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
      const params = await outcome(new HttpClient(), foreign, 'http://127.0.0.1:8401/callback');
      expect(params.get('code')).toBeNull();
      expect(params.get('error')).toBe('access_denied');
    });

    it('the same client with another code_challenge gets no code, and the session stays unusable', async () => {
      const { client, next } = await completedSession();
      const tampered = new URL(next);
      tampered.searchParams.set(
        'code_challenge',
        createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      );
      const params = await outcome(client, tampered, stack.rp.redirectUri);
      expect(params.get('code')).toBeNull();
      expect(params.get('error')).toBe('access_denied');
    });
  },
);
