import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { freePort, LogCapture } from '@tessera/platform/testing';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tessera-verifier-display-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logs = new LogCapture();
let ports: Record<string, number> | undefined;
/** Fixed free ports: the bridge and the designs API verify the token service's tokens at its configured issuer. */
async function start(): Promise<RunningServer> {
  ports ??= {
    tokenInternal: await freePort(),
    tokenExternal: await freePort(),
    designs: await freePort(),
    bridge: await freePort(),
    management: await freePort(),
  };
  return startServer(
    loadServerConfig({
      env: { DATA_DIR: dir, NODE_ENV: 'development', ROLES: 'token,designs,bridge' },
      overrides: { server: { ports }, tokenService: { issuer: `http://127.0.0.1:${ports.tokenInternal}` } },
    }),
    { logDestination: logs },
  );
}

async function adminToken(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.apps.get('token-internal')!.url}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('tessera-admin:tessera-admin-dev-secret').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A new presentation session's request object, as the wallet fetches it by reference. */
interface RequestObject {
  client_id: string;
  client_metadata: Record<string, unknown>;
}

async function requestObject(server: RunningServer, token: string): Promise<RequestObject> {
  const bridge = server.apps.get('bridge')!.url;
  const created = await fetch(`${bridge}/auth/oid4vp/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ queryId: 'wallet-login' }),
  });
  if (created.status !== 200) throw new Error(`session: ${created.status} ${await created.text()}`);
  const { requestUri } = (await created.json()) as { requestUri: string };
  const requestUriValue = new URLSearchParams(requestUri.slice(requestUri.indexOf('?') + 1)).get('request_uri')!;
  const jwt = await (await fetch(requestUriValue.replace(/^https?:\/\/[^/]+/, bridge))).text();
  return decodeJwt(jwt) as unknown as RequestObject;
}

/**
 * Issue 17 item 6: the bridge's request object names the verifier with the display of the verifier design bound to
 * its client id (`client_metadata.client_name`, `logo_uri`), from the registry in the same deployment.
 */
describe('verifier display from the design registry', () => {
  it('sends client_name and logo_uri once a verifier design is bound to the client id', async () => {
    // One start only: a restart on the same fixed ports can find one taken meanwhile by an outgoing connection.
    const server = await start();
    try {
      const token = await adminToken(server);
      // The development request-signing certificate names localhost: the bridge's client id is this one.
      const clientId = 'x509_san_dns:localhost';
      const design = await fetch(`${server.apps.get('designs')!.url}/api/v1/designs/verifiers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          bindings: [{ key: 'CLIENT_ID', value: clientId }],
          alias: 'demo-sign-in',
          hostingMode: 'LOCAL',
          displays: [{ locale: 'en', name: 'Demo University sign-in', logo: { uri: 'https://demo.example/logo.png' } }],
        }),
      });
      expect(design.status).toBe(201);
      const request = await requestObject(server, token);
      expect(request.client_id).toBe(clientId);
      expect(request.client_metadata).toMatchObject({
        client_name: 'Demo University sign-in',
        logo_uri: 'https://demo.example/logo.png',
      });
    } finally {
      await server.close();
    }
  }, 120_000);
});
