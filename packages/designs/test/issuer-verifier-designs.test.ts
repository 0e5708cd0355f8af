import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { call, startDesignsBed, type DesignsBed } from './support.js';

/** Issuer and verifier designs: the same ten operations, their own record types (package README). */
describe.each(DATABASE_KINDS)('issuer and verifier designs (%s)', (kind) => {
  let bed: DesignsBed;
  beforeAll(async () => {
    bed = await startDesignsBed(kind);
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
  });

  const issuer = {
    bindings: [{ key: 'CREDENTIAL_ISSUER', value: 'https://issuer.example.com' }],
    alias: 'Example University',
    hostingMode: 'LOCAL',
    displays: [
      {
        locale: 'en-US',
        name: 'Example University',
        logo: { uri: 'https://issuer.example.com/logo.png', altText: 'The university seal' },
        backgroundColor: '#003366',
        textColor: '#FFFFFF',
      },
    ],
    policyUri: 'https://issuer.example.com/privacy',
    termsOfServiceUri: 'https://issuer.example.com/terms',
  };

  const verifier = {
    bindings: [{ key: 'CLIENT_ID', value: 'x509_san_dns:verifier.example.com' }],
    alias: 'Library',
    hostingMode: 'LOCAL',
    displays: [
      { locale: 'en', name: 'City Library', purpose: 'To check that you are a student.' },
      { locale: 'de', name: 'Stadtbibliothek', purpose: 'Um zu prüfen, dass Sie studieren.' },
    ],
    policyUri: 'https://verifier.example.com/privacy',
  };

  it('keeps an issuer design with its logo, colours and policy URIs', async () => {
    const res = await call(bed, 'POST', '/api/v1/designs/issuers', bed.tokens.alphaAdmin, issuer);
    expect(res.statusCode).toBe(201);
    const record = res.json();
    expect(record).toMatchObject({ ...issuer, entityType: 'ISSUER', tenantId: 'alpha' });
    const byBinding = await call(
      bed,
      'GET',
      `/api/v1/designs/issuers/bindings/CREDENTIAL_ISSUER/${encodeURIComponent('https://issuer.example.com')}`,
      bed.tokens.alphaReader,
    );
    expect(byBinding.json()).toEqual(record);
    // A credential design is not an issuer design: the id is unknown in the other registry.
    expect(
      (await call(bed, 'GET', `/api/v1/designs/credentials/${record.id}`, bed.tokens.alphaReader)).statusCode,
    ).toBe(404);
  });

  it('keeps a verifier design with its purpose text per locale', async () => {
    const res = await call(bed, 'POST', '/api/v1/designs/verifiers', bed.tokens.alphaAdmin, verifier);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ ...verifier, entityType: 'VERIFIER' });
    const list = await call(bed, 'GET', '/api/v1/designs/verifiers?aliasContains=libr', bed.tokens.alphaReader);
    expect(list.json().map((d: { alias: string }) => d.alias)).toEqual(['Library']);
    const updated = await call(bed, 'PUT', `/api/v1/designs/verifiers/${res.json().id}`, bed.tokens.alphaAdmin, {
      ...verifier,
      displays: [{ locale: 'en', name: 'City Library', purpose: 'Students only.' }],
    });
    expect(updated.json().displays).toEqual([{ locale: 'en', name: 'City Library', purpose: 'Students only.' }]);
  });

  it('refuses members of another kind: claims on an issuer, purpose on an issuer display, a wrong entityType', async () => {
    for (const [body, field] of [
      [{ ...issuer, claims: [] }, 'claims'],
      [{ ...issuer, displays: [{ locale: 'en', name: 'x', purpose: 'y' }] }, 'displays.0.purpose'],
      [{ ...verifier, entityType: 'ISSUER' }, 'entityType'],
      [{ ...verifier, policyUri: 'not a uri' }, 'policyUri'],
    ] as const) {
      const path = 'claims' in body || field === 'displays.0.purpose' ? 'issuers' : 'verifiers';
      const res = await call(bed, 'POST', `/api/v1/designs/${path}`, bed.tokens.alphaAdmin, body);
      expect(res.statusCode, field).toBe(400);
      expect(res.json(), field).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field });
    }
  });
});
