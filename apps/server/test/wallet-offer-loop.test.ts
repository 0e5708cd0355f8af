import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, LogCapture } from '@tessera/platform/testing';
import { DEMO_PERSONAS, runCli, type CliIo } from '@tessera/test-wallet';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';
import { DEMO_LOGIN_CREDENTIAL_CONFIGURATION } from '../src/development.js';

/** The embedded provider's alice, as persona 1 of the test wallet: IDV at the provider finds the same claims. */
const ALICE = DEMO_PERSONAS[0]!.claims;

function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line) };
}

/**
 * Issue 19 item 6, the whole loop on the development profile as `npm start` runs it: the administrator makes an
 * offer of the demo login credential, the test wallet's CLI receives it (pre-authorized code with the PIN), answers a
 * wallet-login session of the bridge with it (the issuer's key is trusted for that vct, the status list's origin is
 * fetched), the credential's status entry is revoked through the status-list API, and the next login is refused by
 * the status check. Also the wallet's refusals of bad offers, a wrong PIN and an unreachable issuer.
 */
describe('the whole loop: offer, receive, sign in, revoke, refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-wallet-offer-'));
  const walletDir = join(dir, 'test-wallet');
  let server: RunningServer;
  let token: string;
  let urls: { token: string; bridge: string; issuance: string; statusLists: string };
  let walletStatusPort: number;

  /** Starts the server on fixed free ports (a configured URL names each); `undefined` when one was taken meanwhile. */
  async function startOnFreePorts(): Promise<RunningServer | undefined> {
    const ports = {
      tokenInternal: await freePort(),
      tokenExternal: await freePort(),
      bridge: await freePort(),
      issuance: await freePort(),
      statusLists: await freePort(),
      management: await freePort(),
      devIdp: await freePort(),
    };
    urls = {
      token: `http://127.0.0.1:${ports.tokenInternal}`,
      // The development request-signing certificate names localhost (x509_san_dns).
      bridge: `http://localhost:${ports.bridge}`,
      issuance: `http://127.0.0.1:${ports.issuance}`,
      statusLists: `http://127.0.0.1:${ports.statusLists}`,
    };
    const config = loadServerConfig({
      env: { DATA_DIR: dir, NODE_ENV: 'development', ROLES: 'token,bridge,issuance,status-lists' },
      overrides: {
        server: { ports },
        tokenService: { issuer: urls.token },
        bridge: { publicBaseUrl: urls.bridge, statusListCache: { maxTtlSeconds: 1, minTtlSeconds: 0 } },
        // A one-second ttl, so that the bridge sees the revocation within the test.
        statusLists: { publicBaseUrl: urls.statusLists, ttlSeconds: 1 },
      },
    });
    try {
      return await startServer(config, { logDestination: new LogCapture() });
    } catch (error) {
      // Another process on the machine may take a port between freePort() and listen(): start again elsewhere.
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
      throw error;
    }
  }

  beforeAll(async () => {
    walletStatusPort = await freePort();
    for (let attempt = 0; attempt < 3 && !server; attempt += 1) server = (await startOnFreePorts())!;
    expect(server).toBeDefined();
    const answer = await fetch(`${urls.token}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('tessera-admin:tessera-admin-dev-secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    token = ((await answer.json()) as { access_token: string }).access_token;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function offer(claims: Record<string, unknown> = ALICE): Promise<{ uri: string; userPin: string }> {
    const response = await fetch(`${urls.issuance}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        credential_configuration_ids: [DEMO_LOGIN_CREDENTIAL_CONFIGURATION],
        pinLength: 6,
        credentialDataSupplierInput: claims,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { uri: string; userPin: string };
  }

  const wallet = async (...argv: string[]) => {
    const io = captureIo();
    const code = await runCli([...argv, '--data-dir', walletDir, '--status-port', String(walletStatusPort)], io);
    return { code, ...io };
  };

  /** A wallet-login session at the bridge (as the portal creates it), answered by the wallet CLI. */
  async function login(...extra: string[]) {
    const created = await fetch(`${urls.bridge}/auth/oid4vp/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ queryId: 'wallet-login' }),
    });
    expect(created.status).toBe(200);
    const { sessionId, requestUri } = (await created.json()) as { sessionId: string; requestUri: string };
    const run = await wallet(requestUri, ...extra);
    const status = await fetch(`${urls.bridge}/auth/oid4vp/sessions/${sessionId}/status`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { ...run, sessionId, session: (await status.json()) as Record<string, unknown> };
  }

  it('receives the offered credential, signs in with it, and is refused once its status entry is revoked', async () => {
    const { uri, userPin } = await offer();
    expect(uri.startsWith('openid-credential-offer://')).toBe(true);

    const received = await wallet('receive', uri, '--pin', userPin);
    expect(received.errors).toEqual([]);
    expect(received.code).toBe(0);
    expect(received.lines).toContain(`Received a dc+sd-jwt credential for Alice from ${urls.issuance}.`);
    const summary = received.lines.find((line) => line.startsWith('Credential '))!;
    expect(summary).toContain(`vct urn:tessera:credential:identity:1, received from ${urls.issuance}`);
    expect(received.lines, received.lines.join('\n')).toContain(
      '  claims: eduperson_principal_name=alice@uni.example, email=alice.archer@uni.example, family_name=Archer, given_name=Alice, service_id=S-1001',
    );
    // The status entry as printed: what a person copies into the status-list API.
    const status = received.lines
      .map((line) => /^ {2}status: index (\d+) of the list (\S+); list id (\S+)$/.exec(line))
      .find(Boolean)!;
    expect(status, received.lines.join('\n')).toBeTruthy();
    const [, index, listUri, listId] = status;
    expect(listUri).toBe(`${urls.statusLists}/status-lists/${listId}`);

    // The wallet prefers the received credential: the bridge verifies it (issuer key trusted, list fetched).
    const before = await login();
    expect(before.errors, before.lines.join('\n')).toEqual([]);
    expect(before.code).toBe(0);
    expect(before.lines).toContain(
      "Presented a dc+sd-jwt credential for 'wallet-login': service_id, eduperson_principal_name, email, given_name, family_name.",
    );
    expect(before.session).toMatchObject({ status: 'VERIFIED' });
    // Identity reconciliation: a holder key the deployment has not seen goes to the first-time identity check.
    const completed = await fetch(`${urls.bridge}/auth/oid4vp/sessions/${before.sessionId}/complete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(completed.status).toBe(202);
    expect(await completed.json()).toMatchObject({ idvRequired: true, idvMethod: 'oidc' });

    const revoked = await fetch(`${urls.statusLists}/vc/status-lists/${listId}/entries/${index}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'invalid', reason: 'superseded' }),
    });
    expect(revoked.status, await revoked.clone().text()).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past the list's ttl and the bridge's cache

    const after = await login();
    expect(after.code).toBe(1);
    expect(after.lines.some((line) => line.startsWith('The verifier rejected the presentation (HTTP 400)'))).toBe(true);
    expect(after.session).toMatchObject({
      status: 'INTERACTION_STARTED',
      lastRejection: { check: 'status', reason: expect.stringContaining('revoked') },
    });
  }, 120_000);

  it('takes an offer by value and an https offer link, and lists what it holds', async () => {
    const first = await offer();
    const byReference = new URL(first.uri).searchParams.get('credential_offer_uri')!;
    const offerObject = await (await fetch(byReference)).text();
    const byValue = `openid-credential-offer://?credential_offer=${encodeURIComponent(offerObject)}`;
    const viaValue = await wallet('receive', byValue, '--pin', first.userPin);
    expect(viaValue.errors).toEqual([]);
    expect(viaValue.code).toBe(0);

    const second = await offer();
    const httpsLink = `https://wallet.example/offer?credential_offer_uri=${encodeURIComponent(
      new URL(second.uri).searchParams.get('credential_offer_uri')!,
    )}`;
    // Given as a bare link, the scheme of a plain offer says what to do; an https link takes `receive`.
    const viaLink = await wallet('receive', httpsLink, '--pin', second.userPin);
    expect(viaLink.errors).toEqual([]);
    expect(viaLink.code).toBe(0);

    const listed = await wallet('credentials');
    expect(listed.code).toBe(0);
    // Three received (this test's two and the first test's), then the two of the development issuer.
    const summaries = listed.lines.filter((line) => line.startsWith('Credential '));
    expect(summaries).toHaveLength(5);
    expect(summaries.slice(0, 3).every((line) => line.includes(`received from ${urls.issuance}`))).toBe(true);
    expect(summaries.slice(3).every((line) => line.includes('issued by the development issuer'))).toBe(true);
  }, 60_000);

  it('answers bad offers, a wrong PIN and an unreachable issuer with one line and exit code 1', async () => {
    const bad = await wallet('receive', 'openid-credential-offer://?nothing=here');
    expect(bad.code).toBe(1);
    expect(bad.errors).toEqual([
      'The wallet did not receive the credential: the offer has neither a credential_offer nor a credential_offer_uri',
    ]);

    const notJson = await wallet('receive', 'openid-credential-offer://?credential_offer=%7Bnot-json');
    expect(notJson.errors).toEqual([
      'The wallet did not receive the credential: the credential_offer parameter is not JSON',
    ]);

    const insecure = await wallet(
      'receive',
      'openid-credential-offer://?credential_offer_uri=http://issuer.example/o/1',
    );
    expect(insecure.code).toBe(1);
    expect(insecure.errors[0]).toMatch(/credential_offer_uri must be https/);

    const { uri } = await offer();
    const noPin = await wallet('receive', uri);
    expect(noPin.code).toBe(1);
    expect(noPin.errors).toEqual([
      'The wallet did not receive the credential: the offer asks for a transaction code (6 characters, "The PIN shown by the issuer"); pass --pin',
    ]);
    const wrongPin = await wallet('receive', uri, '--pin', '000000x');
    expect(wrongPin.code).toBe(1);
    expect(wrongPin.errors).toHaveLength(1);
    expect(wrongPin.errors[0]).toMatch(
      /^The wallet did not receive the credential: redeeming the pre-authorized code: the token endpoint answered invalid_grant/,
    );

    const closed = await freePort();
    const unreachableOffer = `openid-credential-offer://?credential_offer=${encodeURIComponent(
      JSON.stringify({
        credential_issuer: `http://127.0.0.1:${closed}`,
        credential_configuration_ids: [DEMO_LOGIN_CREDENTIAL_CONFIGURATION],
        grants: { 'urn:ietf:params:oauth:grant-type:pre-authorized_code': { 'pre-authorized_code': 'abc' } },
      }),
    )}`;
    const unreachable = await wallet('receive', unreachableOffer);
    expect(unreachable.code).toBe(1);
    expect(unreachable.errors).toEqual([
      `The wallet did not receive the credential: reading the issuer metadata: http://127.0.0.1:${closed} is unreachable (ECONNREFUSED)`,
    ]);

    const unknown = await login('--credential', 'no-such-id');
    expect(unknown.code).toBe(1);
    expect(unknown.errors[0]).toBe(
      "The wallet did not answer the request: the wallet holds no credential with id 'no-such-id'",
    );
  }, 60_000);
});
