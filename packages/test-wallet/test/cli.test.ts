import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.js';
import type { CliIo } from '../src/cli/cli-io.js';
import { loadOrCreateDevelopmentIssuer } from '../src/development/load-development-issuer.js';
import type { TestIssuer } from '../src/issuer/create-test-issuer.js';
import { findFreePort, isPortFree } from './support/find-free-port.js';
import { jwtVcQuery, queryOf, sdJwtQuery } from './support/queries.js';
import { startTestVerifier, type TestVerifier } from './support/start-test-verifier.js';

function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line) };
}

const LOGIN_QUERY = queryOf(sdJwtQuery('identity', ['service_id', 'eduperson_principal_name']));

describe('command line', () => {
  let dataDir: string;
  let port: number;
  let issuer: TestIssuer;
  let verifier: TestVerifier;
  let common: string[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'test-wallet-cli-'));
    port = await findFreePort();
    common = ['--data-dir', dataDir, '--status-port', String(port)];
    // What the server's development profile does: read the development issuer to trust it.
    issuer = await loadOrCreateDevelopmentIssuer(dataDir, { statusBaseUrl: `http://127.0.0.1:${port}` });
    verifier = await startTestVerifier({ trustedIssuers: [{ iss: issuer.issuerId, publicJwk: issuer.publicJwk }] });
  });
  afterAll(async () => {
    await verifier.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('completes a login on first run: issues both credentials, serves the status lists, reports acceptance', async () => {
    const session = await verifier.createSession({
      prefix: 'x509_san_dns',
      responseMode: 'direct_post.jwt',
      dcqlQuery: LOGIN_QUERY,
    });
    const io = captureIo();
    const code = await runCli([session.link, ...common], io);

    expect(io.errors).toEqual([]);
    expect(code).toBe(0);
    expect(io.lines.filter((line) => line.startsWith('Issued a '))).toHaveLength(2);
    expect(io.lines).toContain(
      `Presented a dc+sd-jwt credential for 'identity': service_id, eduperson_principal_name.`,
    );
    expect(io.lines).toContain('The verifier accepted the presentation (HTTP 200).');
    expect(io.lines).toContain(`Continue in the browser: ${verifier.baseUrl}/done/${session.id}`);
    expect(io.lines.some((line) => line.startsWith('Note: the verifier certificate was not checked'))).toBe(true);
    expect(session.outcome?.claims?.['identity']).toMatchObject({
      service_id: 'S-1001',
      eduperson_principal_name: 'alice@uni.example',
    });
    expect(await isPortFree(port)).toBe(true);
  });

  it('reuses the stored credentials on the next run', async () => {
    const session = await verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: LOGIN_QUERY,
    });
    const io = captureIo();
    expect(await runCli([session.link, ...common], io)).toBe(0);
    expect(io.lines.some((line) => line.startsWith('Issued a '))).toBe(false);
  });

  it('acts as another persona with its own holder, and presents the chosen format', async () => {
    const dcqlQuery = {
      ...queryOf(sdJwtQuery('sd', ['service_id']), jwtVcQuery('w3c', ['service_id'])),
      credential_sets: [{ options: [['sd'], ['w3c']] }],
    };
    const session = await verifier.createSession({
      prefix: 'decentralized_identifier',
      responseMode: 'direct_post',
      dcqlQuery,
    });
    const io = captureIo();
    expect(await runCli([session.link, '--user', '2', '--format', 'jwt_vc_json', ...common], io)).toBe(0);
    expect(session.outcome?.claims?.['w3c']).toMatchObject({ service_id: 'S-1002', given_name: 'Bob' });
    await expect(access(join(dataDir, 'holders', 'user-2', 'holder-keys.json'))).resolves.toBeUndefined();
  });

  it('accepts a trust anchor file for the verifier certificate', async () => {
    const anchor = join(dataDir, 'verifier-ca.pem');
    await writeFile(anchor, verifier.keys.caCertificatePem);
    const session = await verifier.createSession({
      prefix: 'x509_san_dns',
      responseMode: 'direct_post',
      dcqlQuery: LOGIN_QUERY,
    });
    const io = captureIo();
    expect(await runCli([session.link, '--trust-anchor', anchor, ...common], io)).toBe(0);
    expect(io.lines.some((line) => line.startsWith('Note:'))).toBe(false);
  });

  it('exits non-zero with the verifier’s reason after the credential is revoked, and accepts again when reinstated', async () => {
    const io = captureIo();
    expect(await runCli(['revoke', '--format', 'dc+sd-jwt', ...common], io)).toBe(0);
    expect(io.lines).toEqual([expect.stringMatching(/^Alice's dc\+sd-jwt credential \(index \d+\) is now revoked\.$/)]);

    const session = await verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: LOGIN_QUERY,
    });
    const loginIo = captureIo();
    expect(await runCli([session.link, ...common], loginIo)).toBe(1);
    expect(loginIo.lines.at(-1)).toBe(
      'The verifier rejected the presentation (HTTP 400): invalid_request: Status is not valid',
    );

    expect(await runCli(['reinstate', ...common], captureIo())).toBe(0);
    const again = await verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: LOGIN_QUERY,
    });
    expect(await runCli([again.link, ...common], captureIo())).toBe(0);
  });

  it('exits non-zero when the wallet refuses the request', async () => {
    const session = await verifier.createSession({
      prefix: 'x509_hash',
      responseMode: 'direct_post',
      dcqlQuery: LOGIN_QUERY,
      fault: 'redirect',
    });
    const io = captureIo();
    expect(await runCli([session.link, ...common], io)).toBe(1);
    expect(io.errors).toEqual([
      expect.stringMatching(/^The wallet did not answer the request: the request_uri answered 302/),
    ]);
  });

  it('reports a busy status port instead of answering', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const session = await verifier.createSession({
        prefix: 'x509_hash',
        responseMode: 'direct_post',
        dcqlQuery: LOGIN_QUERY,
      });
      const io = captureIo();
      expect(await runCli([session.link, ...common], io)).toBe(1);
      expect(io.errors[0]).toMatch(/^Could not serve the status lists on 127\.0\.0\.1:\d+/);
      expect(session.requestFetches).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('prints the issuer identifier, CA path and status base URL for operators', async () => {
    const text = captureIo();
    expect(await runCli(['issuer-info', ...common], text)).toBe(0);
    expect(text.lines).toContain(`Issuer identifier (did:jwk): ${issuer.issuerId}`);
    expect(text.lines).toContain(`Status base URL:             http://127.0.0.1:${port}`);

    const json = captureIo();
    expect(await runCli(['issuer-info', '--json', ...common], json)).toBe(0);
    const info = JSON.parse(json.lines.join('\n')) as {
      issuerId: string;
      caCertificatePath: string;
      jwks: { keys: unknown[] };
    };
    expect(info.issuerId).toBe(issuer.issuerId);
    await expect(access(info.caCertificatePath)).resolves.toBeUndefined();
    expect(info.jwks.keys).toHaveLength(1);
  });

  it('answers usage errors with exit code 2', async () => {
    const io = captureIo();
    expect(await runCli(['not-a-command'], io)).toBe(2);
    expect(await runCli(['openid4vp://?x=1', '--format', 'mso_mdoc'], io)).toBe(2);
    expect(await runCli(['openid4vp://?x=1', '--user', 'two'], io)).toBe(2);
    expect(io.errors.every((line) => line.includes('Usage:'))).toBe(true);
  });
});
