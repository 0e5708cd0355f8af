import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ConfigError } from '@tessera/platform';
import { createRequestSigner } from '@tessera/bridge';
import { LogCapture, createPostgresTestDatabase, runTsProcess } from '@tessera/platform/testing';
import { x509 } from '../../../packages/bridge/src/crypto/certificates.js';
import { createPki, createTestCa } from '../../../packages/bridge/test/support/x509.js';
import { productionEnv } from './support/production-env.js';
import { loadServerConfig, startServer } from '../src/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const PUBLIC_BASE_URL = 'https://verifier.example.test';

/** Runs the command line as an operator would (`npm run request-signing -- ...`), in its own process. */
const runCli = (args: string[], env: Record<string, string>) =>
  runTsProcess('apps/server/src/main.ts', ['request-signing', ...args], { cwd: ROOT, env });

/**
 * Under NODE_ENV=production the x509 client identifier prefixes need a CA-issued chain for the key manager's
 * request-signing key, whose private part never leaves it: the operator prints a certificate request, a CA certifies
 * it, and the chain goes into the configuration (docs/deployment.md). Shown here with a real PostgreSQL database.
 */
describe('request-signing certificate under production', () => {
  let database: { url: string; drop(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createPostgresTestDatabase();
    env = productionEnv(database.url, {
      TESSERA_BRIDGE__PUBLIC_BASE_URL: PUBLIC_BASE_URL,
      ROLES: 'bridge',
    });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const serverConfig = (chainPem: string | undefined) =>
    loadServerConfig({
      env,
      overrides: chainPem === undefined ? {} : { bridge: { requestSigning: { certificateChainPem: chainPem } } },
    });

  it('csr prints a request for the key; certified, the chain lets the bridge start; another key stops it', async () => {
    // Without a chain, production refuses to start the bridge and says which key to set.
    await expect(
      startServer(serverConfig(undefined), { ephemeralPorts: true, logDestination: new LogCapture() }),
    ).rejects.toThrow(/bridge\.requestSigning\.certificateChainPem/);

    const cli = await runCli(
      ['csr', '--subject', 'CN=verifier.example.test, O=Acme', '--alt-name', 'verifier.example.test'],
      env,
    );
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n[\s\S]+-----END CERTIFICATE REQUEST-----\n$/);
    const request = new x509.Pkcs10CertificateRequest(cli.stdout);
    expect(request.subject).toBe('CN=verifier.example.test, O=Acme');
    // Asking again gives a request for the same key (it was created once, in the database).
    const again = new x509.Pkcs10CertificateRequest((await runCli(['csr'], env)).stdout);
    expect(again.subject).toBe('CN=verifier.example.test');
    expect(Buffer.from(again.publicKey.rawData)).toEqual(Buffer.from(request.publicKey.rawData));

    const ca = await createTestCa();
    const chain = `${await ca.certify(cli.stdout)}\n${ca.caPem}`;
    const config = serverConfig(chain);
    const server = await startServer(config, { ephemeralPorts: true, logDestination: new LogCapture() });
    try {
      expect((await fetch(`${server.apps.get('management')!.url}/ready`)).status).toBe(200);
      const signer = await createRequestSigner(server.platform, config.bridge).current();
      expect(signer.clientId).toBe('x509_san_dns:verifier.example.test');
      expect(signer.header.x5c).toHaveLength(2);
    } finally {
      await server.close();
    }

    // A certificate of some other key: the start stops and names the key to fix.
    const stranger = await createPki({ issuerUri: PUBLIC_BASE_URL });
    const refused = await startServer(serverConfig(stranger.leafPem), {
      ephemeralPorts: true,
      logDestination: new LogCapture(),
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toMatch(/certificateChainPem.*does not hold the public key/);
  });

  it('csr refuses bad input with a message and exit code 2, and an unknown action with the usage', async () => {
    const bad = await runCli(['csr', '--subject', 'not a name'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/distinguished name/);
    expect(bad.stdout).toBe('');
    const unknown = await runCli(['sign'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^usage: npm run request-signing -- csr/);
  });
});
