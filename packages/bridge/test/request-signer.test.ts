import { compactVerify, importJWK, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ConfigError, loadConfig, platformMigrations, type Principal } from '@tessera/platform';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { BridgeConfigSchema, bridgeMigrations, type BridgeConfig } from '../src/index.js';
import { RequestSigner } from '../src/crypto/request-signer.js';
import { certificateFromX5c, dnsNames, holdsPublicKey, x509HashOf } from '../src/crypto/certificates.js';
import { createPki, createTestCa } from './support/x509.js';
import { x509, x509Crypto } from '../src/crypto/certificates.js';
import {
  CREATE_CERTIFICATE_REQUEST,
  createCertificateRequestCommand,
} from '../src/commands/create-certificate-request.js';

/**
 * Request-object signing (RFC 9101; OID4VP §5.9.3 client identifier prefixes): the key stays in the key manager,
 * the development certificate is signed through it, holds its public key, names the publicBaseUrl host, and is the
 * same for every replica.
 */
describe.each(DATABASE_KINDS)('request signer (%s)', (kind) => {
  let t: TestPlatform;
  const bridge = (overrides: Record<string, unknown> = {}): BridgeConfig =>
    loadConfig(BridgeConfigSchema, {
      env: {},
      overrides: { publicBaseUrl: 'https://verifier.example:8443', ...overrides },
    });
  const signer = (config: BridgeConfig, production = false) =>
    new RequestSigner({ keys: t.platform.keys, db: t.platform.db, clock: t.platform.clock, config, production });

  beforeAll(async () => {
    t = await createTestPlatform(kind, { migrations: [...platformMigrations, ...bridgeMigrations] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('x509_san_dns: a generated certificate for the host, holding the key manager key, shared by replicas', async () => {
    const config = bridge();
    const a = signer(config);
    const { jwt, identity } = await a.sign(() => ({ hello: 'world' }), 'oauth-authz-req+jwt');
    expect(identity.clientId).toBe('x509_san_dns:verifier.example');
    const header = decodeProtectedHeader(jwt);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const leaf = certificateFromX5c((header.x5c as string[])[0]!);
    expect(dnsNames(leaf)).toEqual(['verifier.example']);
    expect(await holdsPublicKey(leaf, await t.platform.keys.publicJwk(config.requestSigning.keyAlias))).toBe(true);
    const { payload } = await compactVerify(
      jwt,
      await importJWK(await t.platform.keys.publicJwk(config.requestSigning.keyAlias), 'ES256'),
    );
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ hello: 'world' });
    // Another replica (its own signer, no memory shared) presents the very same certificate.
    expect((await signer(config).current()).header.x5c).toEqual(header.x5c);
    expect(a.generatesCertificate).toBe(true);
  });

  it('x509_hash: the client id is the SHA-256 of the DER leaf; decentralized_identifier: a did:jwk of the key', async () => {
    const hashed = await signer(bridge({ clientIdPrefix: 'x509_hash' })).current();
    expect(hashed.clientId).toBe(`x509_hash:${x509HashOf(certificateFromX5c((hashed.header.x5c as string[])[0]!))}`);
    const did = await signer(bridge({ clientIdPrefix: 'decentralized_identifier' })).current();
    expect(did.clientId).toMatch(/^decentralized_identifier:did:jwk:[A-Za-z0-9_-]+$/);
    expect(did.header).toEqual({ kid: `${did.clientId.slice('decentralized_identifier:'.length)}#0` });
  });

  it('production: a certificate request for the key manager key, certified by a CA, is the chain requests carry', async () => {
    const config = bridge({ requestSigning: { keyAlias: `csr-${kind}` } });
    const csr = new x509.Pkcs10CertificateRequest(await signer(config).certificateRequest());
    expect(await csr.verify(x509Crypto)).toBe(true);
    expect(csr.subject).toBe('CN=verifier.example');
    const san = csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension);
    expect(san?.names.items.map((n) => [n.type, n.value])).toEqual([['dns', 'verifier.example']]);
    const keyJwk = await t.platform.keys.publicJwk(config.requestSigning.keyAlias);
    const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', await csr.publicKey.export(x509Crypto));
    expect({ kty, crv, x, y }).toEqual({ kty: keyJwk.kty, crv: keyJwk.crv, x: keyJwk.x, y: keyJwk.y });

    const ca = await createTestCa();
    const leafPem = await ca.certify(csr.toString('pem'));
    const certified = bridge({
      requestSigning: { keyAlias: config.requestSigning.keyAlias, certificateChainPem: `${leafPem}\n${ca.caPem}` },
    });
    const production = signer(certified, true);
    expect(() => production.assertConfigured()).not.toThrow();
    expect(production.generatesCertificate).toBe(false);
    const { jwt, identity } = await production.sign(() => ({ hello: 'world' }), 'oauth-authz-req+jwt');
    expect(identity.clientId).toBe('x509_san_dns:verifier.example');
    const x5c = decodeProtectedHeader(jwt).x5c as string[];
    expect(x5c).toHaveLength(2);
    expect(certificateFromX5c(x5c[0]!).toString('pem')).toBe(new x509.X509Certificate(leafPem).toString('pem'));
    await compactVerify(jwt, await importJWK(keyJwk, 'ES256'));
    // A subject and names of the operator's choosing.
    const named = new x509.Pkcs10CertificateRequest(
      await signer(config).certificateRequest({
        subject: 'CN=verifier.example, O=Example University',
        altNames: ['verifier.example', 'login.example'],
      }),
    );
    expect(named.subject).toBe('CN=verifier.example, O=Example University');
  });

  it('the certificate request command: platform administrators only, a bad subject or name is a 400', async () => {
    const command = createCertificateRequestCommand(signer(bridge({ requestSigning: { keyAlias: `cmd-${kind}` } })));
    const principal = (roles: string[]): Principal => ({
      id: 'someone',
      kind: 'service',
      tenantId: 'demo',
      roles,
      scopes: [],
      clientId: null,
      issuer: null,
    });
    const run = (input: Record<string, unknown>, roles = ['platform-admin']) =>
      t.platform.commands.execute(
        command,
        { tenantId: 'demo', principal: principal(roles), correlationId: 'c-1', trace: null, log: t.platform.logger },
        input,
      );
    expect((await run({})).pem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
    await expect(run({}, ['tenant-admin'])).rejects.toMatchObject({ status: 403 });
    for (const input of [{ subject: 'not a name' }, { subject: 'CN=' }, { altNames: ['bad name!'] }]) {
      const refused = await run(input).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ status: 400, code: 'invalid_request' });
    }
    const { events } = await t.platform.audit.query({ tenantId: 'demo', commandId: CREATE_CERTIFICATE_REQUEST });
    expect(events.some((e) => e.result === 'success' && e.businessIds.subject === 'CN=verifier.example')).toBe(true);
  });

  it('refuses a configured chain whose leaf holds another key, and production without a chain', async () => {
    const pki = await createPki({ issuerUri: 'https://verifier.example' });
    await expect(signer(bridge({ requestSigning: { certificateChainPem: pki.leafPem } })).current()).rejects.toThrow(
      ConfigError,
    );
    expect(() => signer(bridge(), true).assertConfigured()).toThrow(/certificateChainPem/);
    expect(() => signer(bridge({ clientIdPrefix: 'decentralized_identifier' }), true).assertConfigured()).not.toThrow();
    expect(() => signer(bridge({ publicBaseUrl: 'http://127.0.0.1:8090' })).assertConfigured()).toThrow(
      /DNS host name/,
    );
  });
});
