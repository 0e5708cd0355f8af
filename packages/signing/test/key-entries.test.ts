import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { startSigningBed, type SigningBed } from './support/bed.js';

/**
 * Key entries (002 §2.1, §4.1 operations 5 and 6; issue 21 §5) on both engines: the imported certificate's view,
 * the chain and validity checks, the key match, tenant isolation, and the access restrictions checked on every
 * signature (role restrictions, subject-only entries), denials audited.
 */
describe.each(DATABASE_KINDS)('key entries and access restrictions (%s)', (kind) => {
  let bed: SigningBed;
  const day = 86_400_000;

  beforeAll(async () => {
    bed = await startSigningBed(kind);
    await bed.softwareEntry('open-key');
    await bed.softwareEntry('signers-only', 'RSA_2048', {
      accessRestrictions: {
        roleRestrictions: [
          { name: 'signer', permission: 'SIGN' },
          { name: 'auditor', permission: 'READ' },
        ],
        subjectId: 'mallory',
      },
    });
    await bed.softwareEntry('alice-only', 'EC_P256', { accessRestrictions: { accessLevel: 'SUBJECT' } });
  });
  afterAll(async () => bed?.close());

  const signWith = async (kid: string, token: string) => {
    const binding = { kid, signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: Buffer.from('data').toString('base64') };
    const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding }, token);
    if (determined.status !== 200) return determined;
    return bed.call('POST', '/signature', { signInput: determined.body.signInput }, token);
  };

  it('answers the key entry with its certificate view and access restrictions (subject from the caller)', async () => {
    const res = await bed.call('GET', '/key-entries/signers-only');
    expect(res.status).toBe(200);
    const { keyEntry, accessRestrictions } = res.body;
    expect(keyEntry).toMatchObject({
      kid: 'signers-only',
      providerId: 'software',
      encryptionAlgorithm: 'RSA',
      publicKey: { algorithm: 'RSA', format: 'X.509' },
    });
    expect(keyEntry.certificate.fingerPrint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(keyEntry.certificate.keyUsage).toEqual(['DIGITAL_SIGNATURE', 'NON_REPUDIATION']);
    // RFC 4514 writes the RDN sequence last first: the test CA encodes CN, then O.
    expect(keyEntry.certificate.subjectDN).toBe('O=Tessera, CN=signers-only');
    expect(keyEntry.certificate.notAfter).toMatch(/\+00:00$/);
    expect(keyEntry.certificateChain).toHaveLength(1);
    expect(accessRestrictions).toEqual({
      subjectId: 'alice',
      accessLevel: 'TENANT',
      roleRestrictions: [
        { name: 'signer', permission: 'SIGN' },
        { name: 'auditor', permission: 'READ' },
      ],
    });
  });

  it('lets only the restricted roles sign; READ allows reading but not signing; denials are audited', async () => {
    const signer = await bed.token({ sub: 'sam', tenant_id: 'demo', roles: ['signer'] });
    const auditor = await bed.token({ sub: 'ann', tenant_id: 'demo', roles: ['auditor'] });
    const other = await bed.token({ sub: 'oscar', tenant_id: 'demo', roles: ['viewer'] });
    expect((await signWith('signers-only', signer)).status).toBe(200);
    expect((await signWith('open-key', other)).status).toBe(200);
    const denied = await signWith('signers-only', other);
    expect(denied.status).toBe(403);
    expect((await bed.call('GET', '/key-entries/signers-only', undefined, auditor)).status).toBe(200);
    expect((await bed.call('GET', '/key-entries/signers-only', undefined, other)).status).toBe(403);
    const binding = { kid: 'signers-only', signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: Buffer.from('data').toString('base64') };
    const input = (await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding }, auditor))
      .body.signInput;
    expect((await bed.call('POST', '/signature', { signInput: input }, auditor)).status).toBe(403);
    const { events } = await bed.t.platform.audit.query({
      tenantId: 'demo',
      commandId: 'signing.create-signature',
      limit: 200,
    });
    expect(
      events.filter((e) => e.result === 'failure' && e.details.error === 'policy_denied').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('keeps a SUBJECT-level entry to its creator', async () => {
    const bob = await bed.token({ sub: 'bob', tenant_id: 'demo', roles: ['tenant-admin'] });
    expect((await signWith('alice-only', bed.admin)).status).toBe(200);
    expect((await signWith('alice-only', bob)).status).toBe(403);
    expect((await bed.call('GET', '/key-entries/alice-only', undefined, bob)).status).toBe(403);
  });

  it('keeps key entries and software keys to their tenant', async () => {
    const beta = await bed.token({ sub: 'bea', tenant_id: 'beta', roles: ['tenant-admin'] });
    expect((await bed.call('GET', '/key-entries/open-key', undefined, beta)).status).toBe(404);
    expect((await signWith('open-key', beta)).status).toBe(404);
    const demoKey = await bed.call('POST', '/keys', {
      keyProviderId: 'software',
      keyType: 'EC_P256',
      providerKid: 'shared-name',
    });
    expect(demoKey.status).toBe(201);
    // The same provider kid in another tenant is another key; linking demo's key from beta finds nothing of demo's.
    const betaKey = await bed.call(
      'POST',
      '/keys',
      { keyProviderId: 'software', keyType: 'EC_P256', providerKid: 'shared-name' },
      beta,
    );
    expect(betaKey.status).toBe(201);
    expect(betaKey.body.publicKey.value).not.toBe(demoKey.body.publicKey.value);
    const dup = await bed.call('POST', '/keys', {
      keyProviderId: 'software',
      keyType: 'EC_P256',
      providerKid: 'shared-name',
    });
    expect(dup.status).toBe(409);
  });

  it('refuses certificates that do not fit: chain out of order, expired, not yet valid, key mismatch, no signing usage, kid taken', async () => {
    const generated = await bed.call('POST', '/keys', { keyProviderId: 'software', keyType: 'RSA_2048' });
    const spki = Buffer.from(generated.body.publicKey.value, 'base64');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' });
    const now = Date.now();
    const good = await bed.ca.issue(spki);
    const cases: Array<[string, Record<string, unknown>, RegExp, number]> = [
      ['out of order', { certificate: bed.ca.certificate, certificateChain: [good] }, /.+/, 400],
      [
        'expired',
        {
          certificate: await bed.ca.issue(spki, { notBefore: new Date(now - 30 * day), notAfter: new Date(now - day) }),
        },
        /expired/,
        400,
      ],
      [
        'not yet valid',
        {
          certificate: await bed.ca.issue(spki, { notBefore: new Date(now + day), notAfter: new Date(now + 30 * day) }),
        },
        /not valid before/,
        400,
      ],
      ['other key', { certificate: await bed.ca.issue(other) }, /no key matching/, 400],
      [
        'named key differs',
        { certificate: await bed.ca.issue(other), providerKid: generated.body.providerKid },
        /does not match/,
        400,
      ],
      ['not a certificate', { certificate: Buffer.from('not a certificate') }, /not a base64 DER X.509/, 400],
      ['kid taken', { certificate: good, kid: 'open-key' }, /exists already/, 409],
    ];
    for (const [name, body, message, status] of cases) {
      const res = await bed.call('POST', '/providers/software/certificates', {
        kid: `bad-${name.replaceAll(' ', '-')}`,
        certificateChain: [bed.ca.certificate.toString('base64')],
        ...Object.fromEntries(
          Object.entries(body).map(([k, v]) => [
            k,
            Buffer.isBuffer(v)
              ? v.toString('base64')
              : Array.isArray(v)
                ? v.map((c: Buffer) => c.toString('base64'))
                : v,
          ]),
        ),
      });
      expect({ name, status: res.status }).toEqual({ name, status });
      expect(res.body.error_description).toMatch(message);
    }
    const unknownProvider = await bed.call('POST', '/providers/nowhere/certificates', {
      kid: 'x',
      certificate: good.toString('base64'),
    });
    expect(unknownProvider.status).toBe(404);
    const ok = await bed.call('POST', '/providers/software/certificates', {
      kid: 'good-entry',
      certificate: good.toString('base64'),
      certificateChain: [bed.ca.certificate.toString('base64')],
    });
    expect(ok.status).toBe(201);
    const { events } = await bed.t.platform.audit.query({
      tenantId: 'demo',
      commandId: 'signing.import-certificate',
      limit: 200,
    });
    expect(events.find((e) => e.businessIds.kid === 'good-entry')).toMatchObject({
      result: 'success',
      businessIds: { providerId: 'software' },
    });
  });

  it('links a certificate imported under the external provider to a software key (operation 6)', async () => {
    const generated = await bed.call('POST', '/keys', { keyProviderId: 'software', keyType: 'EC_P384' });
    const certificate = await bed.ca.issue(Buffer.from(generated.body.publicKey.value, 'base64'));
    const imported = await bed.call('POST', '/providers/external/certificates', {
      kid: 'moved-key',
      certificate: certificate.toString('base64'),
    });
    expect(imported.status).toBe(201);
    expect((await signWith('moved-key', bed.admin)).status).toBe(400);
    const linked = await bed.call('POST', '/providers/software/key-entries', {
      kid: 'moved-key',
      providerKid: generated.body.providerKid,
    });
    expect(linked.status).toBe(201);
    expect(linked.body.keyEntry.providerId).toBe('software');
    const binding = { kid: 'moved-key', signatureConfigId: 'default', keyProviderId: 'software' };
    const origData = { name: 'd', mimeType: 'text/plain', content: Buffer.from('data').toString('base64') };
    const input = (await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding })).body
      .signInput;
    expect((await bed.call('POST', '/signature', { signInput: input })).status).toBe(200);
  });
});
