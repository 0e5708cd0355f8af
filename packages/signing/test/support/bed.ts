import { Value } from 'typebox/value';
import { createRoleApp, platformMigrations, type RoleApp } from '@tessera/platform';
import { createTestPlatform, startTestIssuer, type TestIssuer, type TestPlatform } from '@tessera/platform/testing';
import type { TestDatabaseKind } from '@tessera/platform/testing';
import { SigningConfigSchema, registerSigningRoutes, signingMigrations, type SigningConfig } from '../../src/index.js';
import { createTestCa, type TestCa } from './pki.js';

export const API = '/api/signing/v1';

/** A parsed JSON response body, read loosely by the tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
export type Json = any;

/** A signing role app on a test platform, with a token issuer the platform trusts and a test CA. */
export interface SigningBed {
  t: TestPlatform;
  app: RoleApp;
  issuer: TestIssuer;
  ca: TestCa;
  /** A tenant administrator of the demo tenant. */
  admin: string;
  token(claims: Record<string, unknown>): Promise<string>;
  call(method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }>;
  /** A software key with its certificate imported as key entry `kid`. */
  softwareEntry(
    kid: string,
    keyType?: string,
    options?: { accessRestrictions?: unknown },
  ): Promise<{ spki: Buffer; certificate: Buffer }>;
  close(): Promise<void>;
}

export async function startSigningBed(
  kind: TestDatabaseKind,
  config: Partial<SigningConfig> = {},
): Promise<SigningBed> {
  const issuer = await startTestIssuer();
  const t = await createTestPlatform(kind, {
    migrations: [...platformMigrations, ...signingMigrations],
    overrides: {
      auth: {
        issuers: [
          { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: issuer.audience, tenants: ['demo', 'beta'] },
        ],
      },
      rateLimit: { enabled: false },
    },
  });
  await t.platform.tenants.ensure({ id: 'beta', displayName: 'Beta' });
  await t.platform.tenants.load();
  const app = await createRoleApp(t.platform, { role: 'signing', title: 'Tessera signing', family: 'oauth' });
  const signingConfig = Value.Default(SigningConfigSchema, { ...config }) as SigningConfig;
  registerSigningRoutes(app, t.platform, { config: signingConfig });
  await app.ready();
  const ca = await createTestCa();
  const token = (claims: Record<string, unknown>) => issuer.sign(claims);
  const admin = await token({ sub: 'alice', tenant_id: 'demo', roles: ['tenant-admin'] });
  const call: SigningBed['call'] = async (method, path, body, bearer = admin) => {
    const res = await app.inject({
      method,
      url: `${API}${path}`,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
  };
  return {
    t,
    app,
    issuer,
    ca,
    admin,
    token,
    call,
    async softwareEntry(kid, keyType = 'RSA_2048', options = {}) {
      const generated = await call('POST', '/keys', { keyProviderId: 'software', keyType });
      if (generated.status !== 201) throw new Error(`key generation: ${JSON.stringify(generated.body)}`);
      const spki = Buffer.from(generated.body.publicKey.value, 'base64');
      const certificate = await ca.issue(spki, { subject: `CN=${kid}, O=Tessera` });
      const imported = await call('POST', '/providers/software/certificates', {
        kid,
        certificate: certificate.toString('base64'),
        certificateChain: [ca.certificate.toString('base64')],
        ...options,
      });
      if (imported.status !== 201) throw new Error(`import: ${JSON.stringify(imported.body)}`);
      return { spki, certificate };
    },
    async close() {
      await app.close();
      await t.close();
      await issuer.close();
    },
  };
}

/** determine → (digest) → sign → merge through the API; answers the signed document. */
export async function signThroughApi(
  bed: SigningBed,
  input: {
    pdf: Buffer;
    kid: string;
    keyProviderId?: string;
    pades?: Record<string, unknown>;
    password?: string;
    signMode?: 'DOCUMENT' | 'DIGEST';
    signatureAlgorithm?: string;
  },
): Promise<Buffer> {
  const origData = {
    name: 'doc.pdf',
    mimeType: 'application/pdf',
    content: input.pdf.toString('base64'),
    ...(input.password ? { password: input.password } : {}),
  };
  const binding = { kid: input.kid, signatureConfigId: 'pades', keyProviderId: input.keyProviderId ?? 'software' };
  const determined = await bed.call('POST', '/signature-input', {
    origData,
    signMode: input.signMode ?? 'DOCUMENT',
    binding,
    ...(input.pades ? { signatureFormParametersOverride: { padesSignatureFormParameters: input.pades } } : {}),
  });
  if (determined.status !== 200) throw new Error(`determine ${determined.status}: ${JSON.stringify(determined.body)}`);
  const signed = await bed.call('POST', '/signature', {
    signInput: determined.body.signInput,
    ...(input.signatureAlgorithm ? { signatureAlgorithm: input.signatureAlgorithm } : {}),
  });
  if (signed.status !== 200) throw new Error(`sign ${signed.status}: ${JSON.stringify(signed.body)}`);
  const merged = await bed.call('POST', '/merge', { origData, signature: signed.body.signature });
  if (merged.status !== 200) throw new Error(`merge ${merged.status}: ${JSON.stringify(merged.body)}`);
  return Buffer.from(merged.body.signOutput.value, 'base64');
}
