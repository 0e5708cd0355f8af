import { compactVerify, importJWK, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, platformMigrations } from '@tessera/platform';
import { DATABASE_KINDS, createTestPlatform, type TestPlatform } from '@tessera/platform/testing';
import { BridgeConfigSchema, bridgeMigrations, type BridgeConfig } from '../src/index.js';
import { RequestSigner } from '../src/crypto/request-signer.js';
import { certificateFromX5c, dnsNames, holdsPublicKey, x509HashOf } from '../src/crypto/certificates.js';
import { createPki } from './support/x509.js';

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
