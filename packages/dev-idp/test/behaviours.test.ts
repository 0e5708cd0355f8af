import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startDevIdentityProvider, type Behaviour, type DevIdentityProvider } from '../src/index.js';
import { RP, discover, exchange, signIn } from './support/relying-party.js';

/** The failure modes that tests of the relying parties switch on, seen from openid-client. */
describe('dev identity provider: behaviour switches', () => {
  let idp: DevIdentityProvider;
  let config: client.Configuration;
  const alice = () => idp.users[0]!;

  beforeAll(async () => {
    idp = await startDevIdentityProvider({ port: 0, clients: [RP] });
    config = await discover(idp);
  });
  afterEach(async () => idp.setBehaviour('normal'));
  afterAll(async () => idp?.close());

  it('token_error refuses the exchange with invalid_grant, and leaves the code unused', async () => {
    const login = await signIn(config, alice().username, alice().password);
    await idp.setBehaviour('token_error');
    await expect(exchange(config, login)).rejects.toMatchObject({
      name: 'ResponseBodyError',
      error: 'invalid_grant',
      status: 400,
    });

    await idp.setBehaviour('normal');
    const tokens = await exchange(config, login);
    expect(tokens.claims()?.sub).toBe(alice().sub);
  });

  it('slow holds the token response past a client timeout', async () => {
    const login = await signIn(config, alice().username, alice().password);
    await idp.setBehaviour('slow', { delaySeconds: 20 });
    const impatient = await discover(idp);
    impatient.timeout = 1;
    await expect(exchange(impatient, login)).rejects.toMatchObject({
      code: 'OAUTH_TIMEOUT',
      cause: { name: 'TimeoutError' },
    });
    expect(idp.behaviour()).toBe('slow');
  });

  it.each<[Behaviour, string, string]>([
    ['wrong_nonce', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'nonce'],
    ['wrong_audience', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'aud'],
    ['wrong_issuer', 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'iss'],
    ['expired_id_token', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'exp'],
  ])('%s gives an ID token that openid-client rejects', async (behaviour, code, claim) => {
    const login = await signIn(config, alice().username, alice().password);
    await idp.setBehaviour(behaviour);
    // openid-client names the failed check and the claim it compared (OpenID Connect Core 3.1.3.7).
    await expect(exchange(config, login)).rejects.toMatchObject({ code, cause: { cause: { claim } } });
  });

  it('bad_signature gives an ID token whose signature fails against the published keys', async () => {
    const login = await signIn(config, alice().username, alice().password);
    await idp.setBehaviour('bad_signature');
    const tokens = await exchange(config, login);
    // The claims are intact: only a relying party that verifies the signature notices.
    expect(tokens.claims()?.sub).toBe(alice().sub);
    const keys = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    await expect(jwtVerify(tokens.id_token!, keys)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });

    const strict = await discover(idp);
    client.enableNonRepudiationChecks(strict);
    const second = await signIn(strict, alice().username, alice().password);
    await expect(exchange(strict, second)).rejects.toMatchObject({
      code: 'OAUTH_INVALID_RESPONSE',
      cause: { message: 'JWT signature verification failed' },
    });
  });

  it('down stops listening on the port; restart listens there again with the same keys and clients', async () => {
    const login = await signIn(config, alice().username, alice().password);
    await idp.setBehaviour('down');
    expect(idp.behaviour()).toBe('down');
    await expect(fetch(`${idp.url}/.well-known/openid-configuration`)).rejects.toThrow(/fetch failed/);
    await expect(exchange(config, login)).rejects.toThrow();

    await idp.restart();
    expect(idp.behaviour()).toBe('normal');
    const again = await discover(idp);
    expect(again.serverMetadata().jwks_uri).toBe(config.serverMetadata().jwks_uri);
    const tokens = await exchange(again, await signIn(again, alice().username, alice().password));
    const keys = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    expect((await jwtVerify(tokens.id_token!, keys, { audience: RP.clientId })).payload.sub).toBe(alice().sub);
  });

  it('close and restart reuse the port', async () => {
    const { port } = idp;
    await idp.close();
    await expect(fetch(`${idp.url}/jwks`)).rejects.toThrow(/fetch failed/);
    await idp.restart();
    expect(idp.port).toBe(port);
    expect((await fetch(`${idp.url}/jwks`)).status).toBe(200);
  });
});
