import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { PNG } from 'pngjs';
import jsQRModule from 'jsqr';
import { json, PID, startBed, TENANT, VC, type Bed } from './support.js';

// jsqr is CommonJS with an `exports.default`: under NodeNext the default import is the module object.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

/** Metadata, nonce and offers of the issuer (issue 19 items 1, 4, 5) on both database engines. */
describe.each(DATABASE_KINDS)('OpenID4VCI metadata, nonce and offers (%s)', (kind) => {
  let bed: Bed;
  beforeAll(async () => {
    bed = await startBed(kind);
  });
  afterAll(() => bed?.close());

  const admin = () => ({ authorization: `Bearer ${bed.tokens.admin}` });

  it('publishes the issuer metadata of the bound tenant', async () => {
    const res = await json(`${bed.url}/.well-known/openid-credential-issuer`);
    expect(res.status).toBe(200);
    const m = res.body;
    expect(m.credential_issuer).toBe(bed.url);
    expect(m.credential_endpoint).toBe(`${bed.url}/oid4vci/credential`);
    expect(m.nonce_endpoint).toBe(`${bed.url}/oid4vci/nonce`);
    expect(m.deferred_credential_endpoint).toBe(`${bed.url}/oid4vci/deferredCredential`);
    expect(m.notification_endpoint).toBe(`${bed.url}/oid4vci/notification`);
    expect(m.authorization_servers).toEqual([bed.tokenService]);
    const configs = m.credential_configurations_supported as Record<string, Record<string, unknown>>;
    expect(configs[PID]).toMatchObject({
      format: 'dc+sd-jwt',
      vct: 'urn:eu.tessera:pid:1',
      scope: 'pid',
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
      credential_metadata: { display: [{ name: 'Personal ID', locale: 'en' }] },
    });
    const claims = (configs[PID]!.credential_metadata as { claims: Record<string, unknown>[] }).claims;
    expect(claims[0]).toEqual({
      path: ['given_name'],
      mandatory: true,
      display: [{ name: 'Given name', locale: 'en' }],
    });
    expect(claims[3]).toEqual({ path: ['address', 'locality'], mandatory: true });
    expect(configs[VC]).toMatchObject({
      format: 'jwt_vc_json',
      credential_definition: { type: ['VerifiableCredential', 'EmployeeCredential'] },
    });
  });

  it('takes the display of a configuration and of its claims from the design bound to it', async () => {
    const created = await json(`${bed.url}/api/v1/designs/credentials`, {
      method: 'POST',
      headers: admin(),
      body: {
        bindings: [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: VC }],
        alias: 'Employee',
        hostingMode: 'LOCAL',
        displays: [
          { locale: 'en', name: 'Employee card', backgroundColor: '#003366' },
          { locale: 'de', name: 'Mitarbeiterausweis' },
        ],
        claims: [
          {
            path: [{ kind: 'Property', name: 'employer' }],
            labels: [{ locale: 'en', label: 'Employer' }],
            mandatory: true,
            order: 1,
            valueKind: 'STRING',
            widgetHint: 'TEXT',
          },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const m = (await json(`${bed.url}/.well-known/openid-credential-issuer`)).body;
    const vc = (
      m.credential_configurations_supported as Record<string, { credential_metadata: Record<string, unknown> }>
    )[VC]!;
    expect(vc.credential_metadata.display).toEqual([
      { name: 'Employee card', locale: 'en', background_color: '#003366' },
      { name: 'Mitarbeiterausweis', locale: 'de' },
    ]);
    expect(vc.credential_metadata.claims).toContainEqual({
      path: ['credentialSubject', 'employer'],
      mandatory: true,
      display: [{ name: 'Employer', locale: 'en' }],
    });
  });

  it('refuses a tenant without a tenant_public_endpoint binding, with no fallback', async () => {
    const binding = bed.config.tenants[TENANT]!;
    delete bed.config.tenants[TENANT];
    try {
      const res = await json(`${bed.url}/.well-known/openid-credential-issuer`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
      expect((await json(`${bed.url}/oid4vci/nonce`, { method: 'POST' })).status).toBe(404);
    } finally {
      bed.config.tenants[TENANT] = binding;
    }
  });

  it('hands out distinct nonces, uncached', async () => {
    const a = await json(`${bed.url}/oid4vci/nonce`, { method: 'POST' });
    const b = await json(`${bed.url}/oid4vci/nonce`, { method: 'POST' });
    expect(a.status).toBe(200);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(typeof a.body.c_nonce).toBe('string');
    expect((a.body.c_nonce as string).length).toBeGreaterThanOrEqual(43);
    expect(a.body.c_nonce).not.toBe(b.body.c_nonce);
  });

  it('creates a web application offer with a PIN and a QR code; the offer reads back by reference', async () => {
    const res = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: admin(),
      body: {
        credential_configuration_ids: [PID],
        credentialDataSupplierInput: { given_name: 'Erika', family_name: 'Mustermann' },
        pinLength: 6,
        qrCodeOpts: { size: 300, errorCorrectionLevel: 'Q' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.userPin).toMatch(/^[0-9]{6}$/);
    expect(res.body.txCode).toEqual({ input_mode: 'numeric', length: 6, description: 'The PIN shown by the issuer' });
    const uri = new URL(res.body.uri as string);
    expect(uri.protocol).toBe('openid-credential-offer:');
    const offerUri = uri.searchParams.get('credential_offer_uri')!;
    expect(offerUri.startsWith(`${bed.url}/oid4vci/credential-offers/`)).toBe(true);

    const png = PNG.sync.read(Buffer.from((res.body.qrCodeDataUri as string).split(',')[1]!, 'base64'));
    expect(png.width).toBe(300);
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(res.body.uri);

    const offer = await json(offerUri);
    expect(offer.status).toBe(200);
    expect(offer.body.credential_issuer).toBe(bed.url);
    expect(offer.body.credential_configuration_ids).toEqual([PID]);
    const grant = (offer.body.grants as Record<string, Record<string, unknown>>)[
      'urn:ietf:params:oauth:grant-type:pre-authorized_code'
    ]!;
    expect(typeof grant['pre-authorized_code']).toBe('string');
    expect(grant.tx_code).toEqual({ input_mode: 'numeric', length: 6, description: 'The PIN shown by the issuer' });
    // The PIN is nowhere in the offer.
    expect(JSON.stringify(offer.body)).not.toContain(res.body.userPin as string);
  });

  it('keeps a given pre-authorized code and a custom scheme; no PIN, no userPin', async () => {
    const code = 'given-code-0123456789abcdefghij';
    const res = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: admin(),
      body: {
        credential_configuration_ids: [VC],
        grants: { 'urn:ietf:params:oauth:grant-type:pre-authorized_code': { 'pre-authorized_code': code } },
        scheme: 'haip',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.userPin).toBeUndefined();
    expect(res.body.txCode).toEqual({});
    const uri = new URL(res.body.uri as string);
    expect(uri.protocol).toBe('haip:');
    const offer = await json(uri.searchParams.get('credential_offer_uri')!);
    expect(
      (offer.body.grants as Record<string, Record<string, unknown>>)[
        'urn:ietf:params:oauth:grant-type:pre-authorized_code'
      ]!['pre-authorized_code'],
    ).toBe(code);
  });

  it('refuses bad offer requests with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ credential_configuration_ids: ['nope'] }, 'credential_configuration_ids'],
      [{ credential_configuration_ids: [] }, 'credential_configuration_ids'],
      [{ credential_configuration_ids: [PID], pinLength: 2 }, 'pinLength'],
      [{ credential_configuration_ids: [PID], credential_issuer: 'https://elsewhere.example' }, 'credential_issuer'],
      [{ credential_configuration_ids: [PID], unknown: 1 }, 'unknown'],
      [
        { credential_configuration_ids: [PID], credentialDataSupplierInput: { 'a.b': 1 } },
        'credentialDataSupplierInput',
      ],
      [{ credential_configuration_ids: [PID], qrCodeOpts: { size: 5 } }, 'qrCodeOpts.size'],
    ];
    for (const [body, field] of cases) {
      const res = await json(`${bed.url}/oid4vci/webapp/credential-offers`, { method: 'POST', headers: admin(), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.field).toBe(field);
    }
  });

  it('refuses an offer without a token, and from a reader (not an administrator)', async () => {
    const body = { credential_configuration_ids: [PID] };
    const anonymous = await json(`${bed.url}/oid4vci/webapp/credential-offers`, { method: 'POST', body });
    expect(anonymous.status).toBe(401);
    const reader = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${bed.tokens.reader}` },
    });
    expect(reader.status).toBe(403);
  });

  it('answers 404 for an unknown offer', async () => {
    const res = await json(`${bed.url}/oid4vci/credential-offers/unknown-offer-id`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});
