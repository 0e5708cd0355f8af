import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { LogCapture } from '@tessera/platform/testing';
import { createCredentialGrants, DEV_WALLET_CLIENT_ID } from '@tessera/token-service';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';

const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * Issue 19 item 2 wired in the server (contract C): the token role takes each tenant's credential issuer from the
 * `oid4vci` section (the development profile binds the demo tenant), and the development wallet client exists.
 */
describe('token role with the OpenID4VCI issuer binding (development profile)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-token-credential-grants-'));
  let server: RunningServer;
  let token: string;
  let credentialIssuer: string;

  beforeAll(async () => {
    const config = loadServerConfig({ env: { DATA_DIR: dir, NODE_ENV: 'development', ROLES: 'token' } });
    server = await startServer(config, { ephemeralPorts: true, logDestination: new LogCapture() });
    token = server.apps.get('token-internal')!.url;
    credentialIssuer = config.oid4vci.tenants.demo!.credentialIssuer.replace(/\/+$/, '');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the pre-authorized code grant and mints its token for the bound credential issuer', async () => {
    const meta = (await (await fetch(`${token}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.grant_types_supported).toContain(PRE_AUTH);
    const { preAuthorizedCode } = await createCredentialGrants(server.platform).createPreAuthorizedCode('demo', {
      correlationId: 'server-wiring',
      credentialConfigurationIds: ['any-config'],
    });
    const res = await fetch(`${token}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': preAuthorizedCode }).toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string };
    expect(decodeJwt(body.access_token)).toMatchObject({
      aud: credentialIssuer,
      sub: 'issuance:server-wiring',
      issuance_session: 'server-wiring',
    });
  });

  it('knows the development wallet client (an unknown issuer_state is refused back at its redirect URI)', async () => {
    const url = new URL(`${token}/authorize`);
    const verifier = randomBytes(32).toString('base64url');
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: DEV_WALLET_CLIENT_ID,
      redirect_uri: 'http://127.0.0.1:53111/wallet-callback',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      issuer_state: 'not-an-issuer-state',
    }))
      url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe('/wallet-callback');
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });
});
