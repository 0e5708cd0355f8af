import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { createDesignDisplays, type DesignDisplays } from '../src/index.js';
import { call, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const claim = (name: string, order: number, labels: { locale: string; label: string }[]) => ({
  path: [
    { kind: 'Property', name: 'address' },
    { kind: 'Property', name },
  ],
  labels,
  mandatory: false,
  order,
  valueKind: 'STRING',
  widgetHint: 'TEXT',
});

/** Issue 17 item 6: what the issuer's metadata and the bridge's request object read from bound designs. */
describe.each(DATABASE_KINDS)('design displays for the issuer and the bridge (%s)', (kind) => {
  let bed: DesignsBed;
  let displays: DesignDisplays;
  beforeAll(async () => {
    bed = await startDesignsBed(kind);
    displays = createDesignDisplays(bed.t.platform, designsConfig());
    const create = async (path: string, body: unknown) => {
      const res = await call(bed, 'POST', path, bed.tokens.alphaAdmin, body);
      if (res.statusCode !== 201) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    };
    await create('/api/v1/designs/credentials', {
      bindings: [
        { key: 'CREDENTIAL_CONFIGURATION_ID', value: 'student_card' },
        { key: 'VCT', value: 'https://uni.example/vct/student' },
      ],
      alias: 'Student card',
      hostingMode: 'LOCAL',
      displays: [
        {
          locale: 'en',
          name: 'Student card',
          description: 'Proof of enrolment',
          logo: { uri: 'https://uni.example/logo.png', altText: 'Seal' },
          backgroundColor: '#12107C',
          textColor: '#FFFFFF',
        },
        { locale: 'de', name: 'Studierendenausweis' },
      ],
      claims: [
        claim('street', 1, [
          { locale: 'en', label: 'Street' },
          { locale: 'de', label: 'Straße' },
        ]),
      ],
    });
    await create('/api/v1/designs/verifiers', {
      bindings: [{ key: 'CLIENT_ID', value: 'x509_san_dns:bridge.uni.example' }],
      alias: 'Sign-in',
      hostingMode: 'LOCAL',
      displays: [
        { locale: 'en', name: 'University sign-in', logo: { uri: 'https://uni.example/signin.png' } },
        { locale: 'nl', name: 'Universiteit inloggen' },
      ],
    });
  }, 120_000);
  afterAll(async () => bed?.close());

  it('gives a credential configuration its OpenID4VCI display and claim display from the bound design', async () => {
    const found = await displays.credentialDisplay('alpha', 'student_card', undefined);
    expect(found).toEqual({
      display: [
        {
          name: 'Student card',
          locale: 'en',
          description: 'Proof of enrolment',
          logo: { uri: 'https://uni.example/logo.png', alt_text: 'Seal' },
          background_color: '#12107C',
          text_color: '#FFFFFF',
        },
        { name: 'Studierendenausweis', locale: 'de' },
      ],
      claims: {
        'address.street': [
          { name: 'Street', locale: 'en' },
          { name: 'Straße', locale: 'de' },
        ],
      },
    });
    // Bound by VCT when the configuration id is not bound.
    expect(await displays.credentialDisplay('alpha', 'other-id', 'https://uni.example/vct/student')).toEqual(found);
  });

  it('answers null when nothing is bound, and never from another tenant', async () => {
    expect(await displays.credentialDisplay('alpha', 'unbound', 'https://unbound.example')).toBeNull();
    expect(await displays.credentialDisplay('beta', 'student_card', undefined)).toBeNull();
    expect(await displays.verifierDisplay('beta', 'x509_san_dns:bridge.uni.example')).toBeNull();
  });

  it('gives the verifier its client name and logo in the preferred locale, else the default', async () => {
    expect(await displays.verifierDisplay('alpha', 'x509_san_dns:bridge.uni.example')).toEqual({
      clientName: 'University sign-in',
      logoUri: 'https://uni.example/signin.png',
      locale: 'en',
    });
    expect(await displays.verifierDisplay('alpha', 'x509_san_dns:bridge.uni.example', ['nl-NL'])).toEqual({
      clientName: 'Universiteit inloggen',
      locale: 'nl',
    });
  });

  it('follows an update at once (no cache between the registry and its readers)', async () => {
    const list = await call(bed, 'GET', '/api/v1/designs/verifiers', bed.tokens.alphaAdmin);
    const record = list.json().data?.[0] ?? list.json()[0];
    const res = await call(bed, 'PUT', `/api/v1/designs/verifiers/${record.id}`, bed.tokens.alphaAdmin, {
      ...record,
      displays: [{ locale: 'en', name: 'Renamed sign-in' }],
    });
    expect(res.statusCode).toBe(200);
    expect((await displays.verifierDisplay('alpha', 'x509_san_dns:bridge.uni.example'))?.clientName).toBe(
      'Renamed sign-in',
    );
  });
});
