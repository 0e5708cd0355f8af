import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { ROTATE_SIGNING_KEY } from '@tessera/platform';
import { LogCapture, createPostgresTestDatabase, freePort, runTsProcess } from '@tessera/platform/testing';
import { hashClientSecret } from '@tessera/token-service';
import { productionEnv } from './support/production-env.js';
import { loadServerConfig, startServer, type RunningServer } from '../src/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const ALIAS = 'token-service:acme:rs256';

/** Runs `npm run signing-keys -- ...` as an operator would, in its own process, against the deployment's database. */
const runCli = (args: string[], env: Record<string, string>) =>
  runTsProcess('apps/server/src/main.ts', ['signing-keys', ...args], { cwd: ROOT, env });

/**
 * Rotating the token service's signing key in a running production deployment (issue 3 §8: keys rotate without
 * breaking tokens in flight): the operator's command line rotates it in the shared database; the running process
 * signs with the new key within its recheck interval, publishes both, and tokens signed before still verify.
 */
describe('signing key rotation by the operator', () => {
  const secret = randomBytes(24).toString('base64url');
  let database: { url: string; drop(): Promise<void> };
  let env: Record<string, string>;
  let server: RunningServer;
  let issuer: string;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    env = productionEnv(database.url, {
      TESSERA_TOKEN_SERVICE__ISSUER: issuer,
      TESSERA_SERVER__PORTS__TOKEN_INTERNAL: String(port),
      TESSERA_SERVER__PORTS__TOKEN_EXTERNAL: String(await freePort()),
      TESSERA_SERVER__PORTS__MANAGEMENT: String(await freePort()),
      HOST: '127.0.0.1',
      ROLES: 'token',
    });
    const config = loadServerConfig({
      env,
      overrides: {
        tokenService: {
          clients: {
            reporting: {
              'client-secret': await hashClientSecret(secret),
              'grant-types': ['client_credentials'],
              scopes: ['bridge:sessions'],
              audience: 'tessera-services',
            },
          },
        },
      },
    });
    server = await startServer(config, { logDestination: new LogCapture() });
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  const token = async (): Promise<string> => {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`reporting:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=bridge%3Asessions',
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid;
  const keySet = async () => (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as JSONWebKeySet;

  it('rotate: new tokens carry the new key, both keys are published, a token of the old key still verifies', async () => {
    const before = await token();
    const oldKid = kidOf(before);
    const listed = await runCli(['list'], env);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ alias: ALIAS, version: 1, kid: oldKid, algorithm: 'RS256', state: 'active' }),
    );

    const rotated = await runCli(['rotate', '--alias', ALIAS, '--retain-seconds', '7200'], env);
    expect(rotated.stderr).toBe('');
    expect(rotated.status).toBe(0);
    const output = JSON.parse(rotated.stdout) as { retired: string; active: { kid: string; version: number } };
    expect(output.retired).toBe(oldKid);
    expect(output.active.version).toBe(2);
    expect(output.active.kid).not.toBe(oldKid);

    // The running process follows within its recheck interval (5 s by default).
    const deadline = Date.now() + 30_000;
    let after = await token();
    while (kidOf(after) !== output.active.kid && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await token();
    }
    expect(kidOf(after)).toBe(output.active.kid);
    const published = await keySet();
    expect(published.keys.map((k) => k.kid)).toEqual([output.active.kid, oldKid]);
    for (const jwt of [before, after])
      await expect(jwtVerify(jwt, createLocalJWKSet(published), { issuer })).resolves.toBeTruthy();

    const listedAfter = JSON.parse((await runCli(['list'], env)).stdout) as {
      kid: string;
      state: string;
      publishUntil: string | null;
    }[];
    const retired = listedAfter.find((k) => k.kid === oldKid)!;
    expect(retired.state).toBe('retired');
    const retainedFor = Date.parse(retired.publishUntil!) - Date.now();
    expect(retainedFor).toBeGreaterThan(7_000_000);
    expect(retainedFor).toBeLessThanOrEqual(7_200_000);

    // Audited in the tenant's chain, as the operator, with the alias and both kids.
    const { events } = await server.platform.audit.query({ tenantId: 'acme', commandId: ROTATE_SIGNING_KEY });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      principalId: 'cli-operator',
      result: 'success',
      businessIds: { alias: ALIAS, retiredKid: oldKid, activeKid: output.active.kid },
    });
  });

  // Four refusals, each its own operator process: started together, since a process start is seconds on a busy
  // machine and none of them changes anything.
  it('refuses an unknown alias, a bad retention, and the request-signing key of an x509 bridge', async () => {
    const [unknown, badRetention, requestSigning, usage] = await Promise.all([
      runCli(['rotate', '--alias', 'no-such-key'], env),
      runCli(['rotate', '--alias', ALIAS, '--retain-seconds', 'soon'], env),
      runCli(['rotate', '--alias', 'bridge-request-signing'], env),
      runCli(['rotate'], env),
    ]);
    expect(unknown!.status).toBe(2);
    expect(unknown!.stderr).toMatch(/No key exists under the alias "no-such-key"/);
    expect(badRetention!.status).toBe(2);
    expect(badRetention!.stderr).toMatch(/whole number of seconds/);
    expect(requestSigning!.status).toBe(2);
    expect(requestSigning!.stderr).toMatch(/new alias/);
    expect(usage!.status).toBe(2);
    expect(usage!.stderr).toMatch(/^usage: npm run signing-keys/);
  }, 120_000);
});
