import { DcqlQuery } from 'dcql';
import { describe, expect, it } from 'vitest';
import { BridgeConfigSchema } from '../config.js';
import { statusListCacheOptions } from '../services.js';
import { loadConfig } from '@tessera/platform';
import {
  normalizeTrustedIssuer,
  normalizeQuery,
  parseClaimPath,
  resolveQueries,
  toDcqlQuery,
  WALLET_LOGIN_QUERY_ID,
  type PresentationQuery,
} from './queries.js';

const config = (bridge: Record<string, unknown> = {}) => loadConfig(BridgeConfigSchema, { env: {}, overrides: bridge });

describe('presentation queries (000 §2.2)', () => {
  it('reads the JSONPath subset of claims into DCQL paths', () => {
    expect(parseClaimPath('$.credentialSubject.email')).toEqual(['credentialSubject', 'email']);
    expect(parseClaimPath("$['address']['street_address']")).toEqual(['address', 'street_address']);
    expect(parseClaimPath('$.nationalities[0]')).toEqual(['nationalities', 0]);
    expect(parseClaimPath('$.degrees[*].type')).toEqual(['degrees', null, 'type']);
    for (const bad of ['email', '$', '$..email', '$.a[?(@.x)]', '$[0]']) expect(parseClaimPath(bad)).toBeNull();
  });

  it('builds the reference query wallet-login with the deployment service claim', () => {
    const queries = resolveQueries(config({ walletLogin: { trustedIssuers: ['did:jwk:eyJ4IjoiMSJ9'] } }), 'campus_id');
    const login = queries.get(WALLET_LOGIN_QUERY_ID)!;
    const claims = login.credentials[0]!.claims.map((c) => [c.name, c.required]);
    expect(claims).toEqual([
      ['campus_id', true],
      ['eduperson_principal_name', true],
      ['email', false],
      ['given_name', false],
      ['family_name', false],
    ]);
    expect(login.credentials[0]!.format).toBe('dc+sd-jwt');
    expect(login.credentials[0]!.trustedIssuers).toEqual([{ kind: 'did', value: 'did:jwk:eyJ4IjoiMSJ9' }]);
  });

  it('accepts jwt_vc as jwt_vc_json and credentialSubject paths', () => {
    const q = normalizeQuery(
      'degree',
      {
        credentials: [
          {
            id: 'degree',
            format: 'jwt_vc',
            type: 'UniversityDegreeCredential',
            claims: [{ path: '$.credentialSubject.email', required: true }],
            trusted_issuers: [{ kind: 'did', value: 'did:key:z6Mk' }],
          },
        ],
      },
      'bridge.queries.degree',
    );
    expect(q.credentials[0]).toMatchObject({
      format: 'jwt_vc_json',
      claims: [{ name: 'email', path: ['credentialSubject', 'email'] }],
    });
  });

  it('reads plain trusted-issuer strings by shape and refuses anything else', () => {
    const make = (issuer: string) =>
      normalizeQuery(
        'q',
        {
          credentials: [
            {
              id: 'c',
              format: 'dc+sd-jwt',
              type: 't',
              claims: [{ path: '$.a', required: true }],
              trusted_issuers: [issuer],
            },
          ],
        },
        'bridge.queries.q',
      );
    expect(make('did:key:z6Mkabc').credentials[0]!.trustedIssuers[0]!.kind).toBe('did');
    expect(make('{"kty":"EC"}').credentials[0]!.trustedIssuers[0]!.kind).toBe('jwk');
    expect(
      make('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----').credentials[0]!.trustedIssuers[0]!.kind,
    ).toBe('x509');
    expect(() => make('https://issuer.example')).toThrow(/bridge.queries.q.credentials.0.trusted_issuers.0/);
  });

  it('produces a DCQL query that dcql accepts, with optional claims as claim sets', () => {
    const login = resolveQueries(config(), 'service_id').get(WALLET_LOGIN_QUERY_ID)!;
    const dcql = toDcqlQuery(login);
    const parsed = DcqlQuery.parse(dcql as DcqlQuery.Input);
    DcqlQuery.validate(parsed);
    expect(dcql).toMatchObject({
      credentials: [
        {
          id: 'wallet-login',
          format: 'dc+sd-jwt',
          meta: { vct_values: ['urn:tessera:vct:wallet-login'] },
          claim_sets: [
            ['0', '1', '2', '3', '4'],
            ['0', '1'],
          ],
        },
      ],
    });
    const w3c = toDcqlQuery(
      normalizeQuery(
        'w',
        {
          credentials: [
            {
              id: 'w',
              format: 'jwt_vc_json',
              type: 'X',
              claims: [{ path: '$.credentialSubject.a', required: true }],
              trusted_issuers: ['did:key:z6Mk'],
            },
          ],
        },
        'k',
      ),
    );
    expect(w3c).toEqual({
      credentials: [
        {
          id: 'w',
          format: 'jwt_vc_json',
          meta: { type_values: [['X']] },
          claims: [{ id: '0', path: ['credentialSubject', 'a'] }],
        },
      ],
    });
    DcqlQuery.validate(DcqlQuery.parse(w3c as DcqlQuery.Input));
  });

  it('the development wallet-login query accepts either format: one credential set of two options (OID4VP §6.2)', () => {
    const production = resolveQueries(config(), 'service_id').get(WALLET_LOGIN_QUERY_ID)!;
    expect(toDcqlQuery(production)).not.toHaveProperty('credential_sets');
    const login = resolveQueries(config(), 'service_id', { development: true }).get(WALLET_LOGIN_QUERY_ID)!;
    const dcql = toDcqlQuery(login);
    DcqlQuery.validate(DcqlQuery.parse(dcql as DcqlQuery.Input));
    expect(dcql).toMatchObject({
      credentials: [
        { id: 'wallet-login', format: 'dc+sd-jwt' },
        {
          id: 'wallet-login-alternative',
          format: 'jwt_vc_json',
          meta: { type_values: [['TesseraIdentityCredential']] },
          claims: expect.arrayContaining([{ id: '0', path: ['credentialSubject', 'service_id'] }]),
        },
      ],
      credential_sets: [{ options: [['wallet-login'], ['wallet-login-alternative']], required: true }],
    });
    // A configured alternative wins over the development default, under any profile.
    const configured = resolveQueries(
      config({ walletLogin: { alternative: { format: 'jwt_vc', type: 'CampusCard' } } }),
      'service_id',
    ).get(WALLET_LOGIN_QUERY_ID)!;
    expect(configured.credentials[1]).toMatchObject({ format: 'jwt_vc_json', type: 'CampusCard' });
    // A credential set naming an unknown credential query is a configuration error.
    expect(() =>
      normalizeQuery(
        'q',
        { ...toConfig(login), credential_sets: [{ options: [['nope']], required: true }] },
        'bridge.queries.q',
      ),
    ).toThrow(/bridge.queries.q.credential_sets.0.options.0/);
  });

  it('the configuration defaults are those documented', () => {
    const c = config();
    expect(c).toMatchObject({
      publicBaseUrl: 'http://localhost:8090',
      sessionTimeoutSeconds: 300,
      clientIdPrefix: 'x509_san_dns',
      responseMode: 'direct_post.jwt',
      sessionClientsScope: 'bridge:sessions',
      redeem: { scope: 'bridge:redeem', windowSeconds: 120 },
      identityResolution: { autoMatchAttributes: [], holderKeyStrategy: 'credential-key' },
      statusListCache: { minTtlSeconds: 10, fetchTimeoutSeconds: 5 },
      kbJwtMaxAgeSeconds: 300,
      maxFailedResponses: 3,
    });
    // The maximum depends on the profile (services.ts): 300 s under production, 30 s otherwise.
    expect(c.statusListCache.maxTtlSeconds).toBeUndefined();
    expect(statusListCacheOptions(c, true).maxTtlSeconds).toBe(300);
    expect(statusListCacheOptions(c, false).maxTtlSeconds).toBe(30);
    const configured = config();
    configured.statusListCache.maxTtlSeconds = 77;
    expect(statusListCacheOptions(configured, false).maxTtlSeconds).toBe(77);
  });
});

/** A normalized query back in its configuration form (for the credential-set refusal above). */
function toConfig(query: PresentationQuery) {
  return {
    credentials: query.credentials.map((c) => ({
      id: c.id,
      format: c.format,
      type: c.type,
      claims: c.claims.map((claim) => ({ path: claim.jsonPath, required: claim.required })),
      trusted_issuers: [],
    })),
  };
}

describe('trusted issuers', () => {
  it('keeps the extended key usages an X.509 anchor demands, so that the chain check sees them (issue 13 §5)', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(
      normalizeTrustedIssuer({ kind: 'x509', value: ` ${pem} `, extendedKeyUsage: ['1.3.6.1.4.1.99999.1'] }, 'k'),
    ).toEqual({ kind: 'x509', value: pem, extendedKeyUsage: ['1.3.6.1.4.1.99999.1'] });
    expect(normalizeTrustedIssuer({ kind: 'x509', value: pem }, 'k')).toEqual({ kind: 'x509', value: pem });
    expect(normalizeTrustedIssuer('did:jwk:abc', 'k')).toEqual({ kind: 'did', value: 'did:jwk:abc' });
  });
});
