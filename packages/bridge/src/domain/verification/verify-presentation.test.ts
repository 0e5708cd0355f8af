import { beforeAll, describe, expect, it } from 'vitest';
import {
  bitstringStatusList,
  b64json,
  disclosure,
  issueJwtVc,
  issueSdJwt,
  newKey,
  nowSeconds,
  presentJwtVc,
  presentSdJwt,
  signJwt,
  tokenStatusList,
  type TestKey,
} from '../../../test/support/credentials.js';
import { createPki, type TestPki } from '../../../test/support/x509.js';
import { normalizeQuery, type PresentationQuery } from '../queries.js';
import { StatusChecker, type StatusListSource } from './status.js';
import { presentationDigest, verifyPresentation, type VerificationOutcome } from './verify-presentation.js';

/**
 * The verifier's checks, one hostile case each (security checklist, OpenID4VP verifier lines; RFC 9901 §7). The
 * status lists come from an in-memory source here; the shared cache and the fetch are tested in
 * test/status-list-cache.test.ts.
 */
class ListSource implements StatusListSource {
  readonly lists = new Map<string, string>();
  async token(uri: string): Promise<string> {
    const token = this.lists.get(uri);
    if (!token) throw new Error('unreachable');
    return token;
  }
}

const CLIENT_ID = 'x509_san_dns:verifier.example';
const NONCE = 'n-0S6_WzA2Mj-abcdefghijklmnopqrstuvwxyz012';
const LIST = 'https://status.example/lists/1';
const W3C_LIST = 'https://status.example/w3c/revocation';

let issuer: TestKey;
let holder: TestKey;
let stranger: TestKey;
let source: ListSource;
let checker: StatusChecker;

const sdQuery = (
  trusted: { kind: 'did' | 'jwk' | 'x509'; value: string }[] = [{ kind: 'did', value: issuer.did }],
): PresentationQuery =>
  normalizeQuery(
    'login',
    {
      credentials: [
        {
          id: 'login',
          format: 'dc+sd-jwt',
          type: 'urn:test:vct',
          claims: [
            { path: '$.service_id', required: true },
            { path: '$.eduperson_principal_name', required: true },
            { path: '$.email', required: false },
          ],
          trusted_issuers: trusted,
        },
      ],
    },
    'q',
  );

/** An SD-JWT VC signed by the PKI's leaf, named in its x5c header, with `iss`, presented by the holder. */
async function presentedViaX5c(pki: TestPki, iss: string): Promise<string> {
  const issued = await issueSdJwt({
    issuer: pki.leafKey,
    holder,
    claims,
    payload: { iss },
    header: { x5c: pki.x5c, kid: undefined },
  });
  return presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE });
}

const w3cQuery = (): PresentationQuery =>
  normalizeQuery(
    'degree',
    {
      credentials: [
        {
          id: 'degree',
          format: 'jwt_vc_json',
          type: 'TestCredential',
          claims: [
            { path: '$.credentialSubject.service_id', required: true },
            { path: '$.credentialSubject.email', required: false },
          ],
          trusted_issuers: [{ kind: 'did', value: issuer.did }],
        },
      ],
    },
    'q',
  );

const claims = { service_id: 's-123', eduperson_principal_name: 'alice@uni.example', email: 'alice@uni.example' };

async function verify(vpToken: unknown, query = sdQuery(), used: string[] = []): Promise<VerificationOutcome> {
  return verifyPresentation(
    {
      vpToken,
      query,
      clientId: CLIENT_ID,
      nonce: NONCE,
      now: new Date(),
      kbJwtMaxAgeSeconds: 300,
      clockSkewSeconds: 30,
    },
    { status: checker, usedDigests: async (digests) => digests.filter((d) => used.includes(d)) },
  );
}

const failedCheck = (o: VerificationOutcome) => (o.ok ? null : { check: o.failure.check, reason: o.failure.reason });

async function goodSdJwt(extra: Partial<Parameters<typeof issueSdJwt>[0]> = {}): Promise<string> {
  return issueSdJwt({ issuer, holder, claims, status: { idx: 3, uri: LIST }, ...extra });
}

beforeAll(async () => {
  [issuer, holder, stranger] = await Promise.all([newKey(), newKey(), newKey()]);
  source = new ListSource();
  source.lists.set(LIST, await tokenStatusList(issuer, LIST, [0, 0, 0, 0, 1, 2], { bits: 2 }));
  source.lists.set(W3C_LIST, await bitstringStatusList(issuer, W3C_LIST, [7]));
  checker = new StatusChecker(source, { clockSkewSeconds: 30 });
});

describe('dc+sd-jwt', () => {
  it('accepts a valid presentation and names every check it ran', async () => {
    const vp = await presentSdJwt(await goodSdJwt(), { holder, aud: CLIENT_ID, nonce: NONCE });
    const outcome = await verify({ login: [vp] });
    expect(failedCheck(outcome)).toBeNull();
    if (!outcome.ok) return;
    expect(outcome.claims).toEqual(claims);
    expect(outcome.checks.map((c) => c.check)).toEqual([
      'dcql',
      'replay',
      'format',
      'issuer_trust',
      'signature',
      'disclosures',
      'holder_binding',
      'nonce',
      'audience',
      'validity_period',
      'status',
      'dcql',
    ]);
    expect(outcome.checks.every((c) => c.ok)).toBe(true);
    expect(outcome.digests).toEqual([presentationDigest(vp)]);
  });

  it('accepts the optional claim withheld, refuses a required claim withheld (dcql)', async () => {
    const noEmail = await presentSdJwt(await goodSdJwt(), {
      holder,
      aud: CLIENT_ID,
      nonce: NONCE,
      keep: (n) => n !== 'email',
    });
    const ok = await verify({ login: noEmail });
    expect(ok.ok && ok.claims).toEqual({ service_id: 's-123', eduperson_principal_name: 'alice@uni.example' });
    const noEppn = await presentSdJwt(await goodSdJwt(), {
      holder,
      aud: CLIENT_ID,
      nonce: NONCE,
      keep: (n) => n !== 'eduperson_principal_name',
    });
    expect(failedCheck(await verify({ login: noEppn }))).toEqual({
      check: 'dcql',
      reason: 'a required claim is missing: $.eduperson_principal_name',
    });
  });

  it('refuses a missing or an unknown credential query id (OID4VP §14.11)', async () => {
    const vp = await presentSdJwt(await goodSdJwt(), { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(failedCheck(await verify({}))?.check).toBe('dcql');
    expect(failedCheck(await verify({ login: vp, other: vp }))).toMatchObject({
      check: 'dcql',
      reason: expect.stringContaining('unknown credential query id'),
    });
    expect(failedCheck(await verify({ login: [vp, vp] }))?.check).toBe('dcql');
    expect(failedCheck(await verify('just a string'))?.check).toBe('dcql');
  });

  it('refuses a presentation already accepted elsewhere (replay)', async () => {
    const vp = await presentSdJwt(await goodSdJwt(), { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(failedCheck(await verify({ login: vp }, sdQuery(), [presentationDigest(vp)]))?.check).toBe('replay');
  });

  it('refuses an issuer outside the trusted list, whatever it claims', async () => {
    const foreign = await issueSdJwt({ issuer: stranger, holder, claims });
    expect(
      failedCheck(await verify({ login: await presentSdJwt(foreign, { holder, aud: CLIENT_ID, nonce: NONCE }) }))
        ?.check,
    ).toBe('issuer_trust');
    // Claims the trusted DID as iss, but is signed by another key.
    const forged = await issueSdJwt({
      issuer: stranger,
      holder,
      claims,
      payload: { iss: issuer.did },
      header: { kid: issuer.kid },
    });
    expect(
      failedCheck(await verify({ login: await presentSdJwt(forged, { holder, aud: CLIENT_ID, nonce: NONCE }) }))?.check,
    ).toBe('signature');
    // A kid naming the trusted DID while iss names another.
    const mixed = await issueSdJwt({ issuer: stranger, holder, claims, header: { kid: issuer.kid } });
    expect(
      failedCheck(await verify({ login: await presentSdJwt(mixed, { holder, aud: CLIENT_ID, nonce: NONCE }) }))?.check,
    ).toBe('issuer_trust');
  });

  it('refuses alg none', async () => {
    const [jwt, ...rest] = (await goodSdJwt()).split('~');
    const [, payload] = jwt!.split('.');
    const unsigned = `${b64json({ alg: 'none', typ: 'dc+sd-jwt' })}.${payload}.`;
    const vp = await presentSdJwt([unsigned, ...rest].join('~'), { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(failedCheck(await verify({ login: vp }))).toMatchObject({
      check: 'signature',
      reason: expect.stringContaining('none'),
    });
  });

  it('refuses tampered, unreferenced, duplicated and reserved-name disclosures (RFC 9901 §7.1)', async () => {
    const issued = await goodSdJwt();
    const tamper = (sd: string) => {
      const parts = sd.split('~');
      const decoded = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as unknown[];
      decoded[2] = 'changed';
      parts[1] = b64json(decoded);
      return parts.join('~');
    };
    const cases: [string, string][] = [
      ['tampered', await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE, alter: tamper })],
      [
        'unreferenced',
        await presentSdJwt(issued, {
          holder,
          aud: CLIENT_ID,
          nonce: NONCE,
          alter: (sd) => `${sd}${disclosure('extra', 1).encoded}~`,
        }),
      ],
      [
        'duplicated',
        await presentSdJwt(issued, {
          holder,
          aud: CLIENT_ID,
          nonce: NONCE,
          alter: (sd) => `${sd}${sd.split('~')[1]}~`,
        }),
      ],
    ];
    const reserved = disclosure('_sd', 'x');
    cases.push([
      'named _sd',
      await presentSdJwt(await goodSdJwt({ extraDigests: [reserved.digest], extraDisclosures: [reserved.encoded] }), {
        holder,
        aud: CLIENT_ID,
        nonce: NONCE,
      }),
    ]);
    const dots = disclosure('...', 'x');
    cases.push([
      'named ...',
      await presentSdJwt(await goodSdJwt({ extraDigests: [dots.digest], extraDisclosures: [dots.encoded] }), {
        holder,
        aud: CLIENT_ID,
        nonce: NONCE,
      }),
    ]);
    const twice = disclosure('twice', 'x');
    cases.push([
      'duplicate digest',
      await presentSdJwt(
        await goodSdJwt({ extraDigests: [twice.digest, twice.digest], extraDisclosures: [twice.encoded] }),
        { holder, aud: CLIENT_ID, nonce: NONCE },
      ),
    ]);
    const existing = disclosure('service_id', 'other');
    cases.push([
      'claim present twice',
      await presentSdJwt(
        await goodSdJwt({
          payload: { service_id: 'plain' },
          extraDigests: [existing.digest],
          extraDisclosures: [existing.encoded],
        }),
        { holder, aud: CLIENT_ID, nonce: NONCE },
      ),
    ]);
    for (const [name, vp] of cases) expect(failedCheck(await verify({ login: vp }))?.check, name).toBe('disclosures');
  });

  it('requires the key-binding JWT, with typ kb+jwt, the holder key, the sd_hash and a fresh iat', async () => {
    const issued = await goodSdJwt();
    const cases: [string, string][] = [
      ['missing', issued],
      ['typ', await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE, typ: 'JWT' })],
      ['key', await presentSdJwt(issued, { holder: stranger, aud: CLIENT_ID, nonce: NONCE })],
      ['old', await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE, iat: nowSeconds() - 3600 })],
      ['future', await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE, iat: nowSeconds() + 3600 })],
    ];
    const good = await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE });
    const parts = good.split('~');
    parts.splice(1, 1); // drop a disclosure after the KB-JWT was computed: sd_hash no longer matches
    cases.push(['sd_hash', parts.join('~')]);
    for (const [name, vp] of cases)
      expect(failedCheck(await verify({ login: vp }))?.check, name).toBe('holder_binding');
  });

  it('refuses a wrong nonce and a wrong audience (OID4VP §14.1)', async () => {
    const issued = await goodSdJwt();
    expect(
      failedCheck(
        await verify({ login: await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: 'another-nonce' }) }),
      )?.check,
    ).toBe('nonce');
    expect(
      failedCheck(
        await verify({ login: await presentSdJwt(issued, { holder, aud: 'x509_san_dns:evil.example', nonce: NONCE }) }),
      )?.check,
    ).toBe('audience');
  });

  it('refuses an expired or not yet valid credential', async () => {
    const expired = await goodSdJwt({ payload: { exp: nowSeconds() - 120 } });
    expect(
      failedCheck(await verify({ login: await presentSdJwt(expired, { holder, aud: CLIENT_ID, nonce: NONCE }) }))
        ?.check,
    ).toBe('validity_period');
    const early = await goodSdJwt({ payload: { nbf: nowSeconds() + 600 } });
    expect(
      failedCheck(await verify({ login: await presentSdJwt(early, { holder, aud: CLIENT_ID, nonce: NONCE }) }))?.check,
    ).toBe('validity_period');
  });

  it('fails closed on status: revoked, suspended, out of range, sub mismatch, unsigned, foreign, expired, unreachable', async () => {
    const at = async (idx: number, uri = LIST) =>
      presentSdJwt(await goodSdJwt({ status: { idx, uri } }), { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(failedCheck(await verify({ login: await at(4) }))).toEqual({
      check: 'status',
      reason: 'the credential is revoked (INVALID)',
    });
    expect(failedCheck(await verify({ login: await at(5) }))).toEqual({
      check: 'status',
      reason: 'the credential is suspended',
    });
    expect(failedCheck(await verify({ login: await at(5000) }))).toMatchObject({
      check: 'status',
      reason: expect.stringContaining('out of the range'),
    });

    const v = (name: string) => `https://status.example/v/${name}`;
    source.lists.set(v('sub'), await tokenStatusList(issuer, 'https://status.example/other', [0, 0, 0, 0]));
    source.lists.set(v('foreign'), await tokenStatusList(stranger, v('foreign'), [0, 0, 0, 0]));
    source.lists.set(
      v('expired'),
      await tokenStatusList(issuer, v('expired'), [0, 0, 0, 0], { payload: { exp: nowSeconds() - 600 } }),
    );
    source.lists.set(v('typ'), await tokenStatusList(issuer, v('typ'), [0, 0, 0, 0], { header: { typ: 'JWT' } }));
    source.lists.set(v('garbage'), 'not a jwt');
    for (const name of ['sub', 'foreign', 'expired', 'typ', 'garbage'])
      expect(failedCheck(await verify({ login: await at(0, v(name)) }))?.check, name).toBe('status');
    const unsignedUri = 'https://status.example/v/unsigned';
    const signed = await tokenStatusList(issuer, unsignedUri, [0]);
    source.lists.set(unsignedUri, `${b64json({ alg: 'none', typ: 'statuslist+jwt' })}.${signed.split('.')[1]}.`);
    expect(failedCheck(await verify({ login: await at(0, unsignedUri) }))?.check).toBe('status');
    expect(failedCheck(await verify({ login: await at(0, 'https://status.example/down') }))).toMatchObject({
      check: 'status',
      reason: expect.stringContaining('unavailable'),
    });
  });

  it('trusts a pinned JWK and an X.509 chain to the configured anchor, and nothing else', async () => {
    const pinned = await presentSdJwt(await goodSdJwt(), { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(
      failedCheck(await verify({ login: pinned }, sdQuery([{ kind: 'jwk', value: JSON.stringify(issuer.publicJwk) }]))),
    ).toBeNull();
    expect(
      failedCheck(
        await verify({ login: pinned }, sdQuery([{ kind: 'jwk', value: JSON.stringify(stranger.publicJwk) }])),
      )?.check,
    ).toBe('signature');

    const pki = await createPki({ issuerUri: 'https://issuer.example', withCa: true });
    const other = await createPki({ issuerUri: 'https://issuer.example' });
    const vp = await presentedViaX5c(pki, 'https://issuer.example');
    expect(failedCheck(await verify({ login: vp }, sdQuery([{ kind: 'x509', value: pki.caPem }])))).toBeNull();
    expect(failedCheck(await verify({ login: vp }, sdQuery([{ kind: 'x509', value: other.caPem }])))?.check).toBe(
      'issuer_trust',
    );
    const misnamed = await presentedViaX5c(pki, 'https://elsewhere.example');
    expect(failedCheck(await verify({ login: misnamed }, sdQuery([{ kind: 'x509', value: pki.caPem }])))).toMatchObject(
      { check: 'issuer_trust', reason: expect.stringContaining('name') },
    );
  });

  it('an X.509 leaf just outside its validity is trusted within the clock skew (30 s here), and not beyond it', async () => {
    const now = Date.now();
    const verdict = async (leaf: { notBefore?: Date; notAfter?: Date }) => {
      const pki = await createPki({ issuerUri: 'https://issuer.example', withCa: true, ...leaf });
      const vp = await presentedViaX5c(pki, 'https://issuer.example');
      return failedCheck(await verify({ login: vp }, sdQuery([{ kind: 'x509', value: pki.caPem }])));
    };
    const outside = { check: 'issuer_trust', reason: expect.stringContaining('validity') };
    expect(await verdict({ notBefore: new Date(now + 10_000) })).toBeNull();
    expect(await verdict({ notAfter: new Date(now - 10_000) })).toBeNull();
    expect(await verdict({ notBefore: new Date(now + 120_000) })).toMatchObject(outside);
    expect(await verdict({ notAfter: new Date(now - 120_000) })).toMatchObject(outside);
  });

  it('resolves a did:key issuer (P-256, multicodec 0x1200)', async () => {
    const x = Buffer.from(issuer.publicJwk.x!, 'base64url');
    const y = Buffer.from(issuer.publicJwk.y!, 'base64url');
    const point = Buffer.concat([Buffer.from([0x80, 0x24, 0x02 + (y[y.length - 1]! & 1)]), x]);
    const didKey = `did:key:z${base58(point)}`;
    const issued = await issueSdJwt({
      issuer,
      holder,
      claims,
      payload: { iss: didKey },
      header: { kid: `${didKey}#${didKey.slice(8)}` },
    });
    const vp = await presentSdJwt(issued, { holder, aud: CLIENT_ID, nonce: NONCE });
    expect(failedCheck(await verify({ login: vp }, sdQuery([{ kind: 'did', value: didKey }])))).toBeNull();
  });
});

describe('jwt_vc_json', () => {
  const credentialStatus = (idx: number, purpose = 'revocation') => ({
    id: `${W3C_LIST}#${idx}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: purpose,
    statusListIndex: String(idx),
    statusListCredential: W3C_LIST,
  });

  it('accepts a VP signed by the credential subject, with the nonce and the client_id', async () => {
    const vc = await issueJwtVc({
      issuer,
      holder,
      subject: { service_id: 's-1', email: 'a@b.example' },
      credentialStatus: credentialStatus(3),
    });
    const outcome = await verify(
      { degree: await presentJwtVc(vc, { holder, aud: CLIENT_ID, nonce: NONCE }) },
      w3cQuery(),
    );
    expect(failedCheck(outcome)).toBeNull();
    expect(outcome.ok && outcome.claims).toEqual({ service_id: 's-1', email: 'a@b.example' });
  });

  it('refuses nonce, audience, subject, issuer, signature, revocation and purpose faults', async () => {
    const vc = await issueJwtVc({
      issuer,
      holder,
      subject: { service_id: 's-1' },
      credentialStatus: credentialStatus(3),
    });
    const present = (o: Partial<Parameters<typeof presentJwtVc>[1]> = {}, credential = vc) =>
      presentJwtVc(credential, { holder, aud: CLIENT_ID, nonce: NONCE, ...o });
    const [h, p, s] = vc.split('.');
    const body = JSON.parse(Buffer.from(p!, 'base64url').toString()) as {
      vc: { credentialSubject: Record<string, unknown> };
    };
    body.vc.credentialSubject.service_id = 's-2';
    const cases: [string, unknown, string][] = [
      ['nonce', await present({ nonce: 'other' }), 'nonce'],
      ['audience', await present({ aud: 'x509_san_dns:evil.example' }), 'audience'],
      ['subject', await present({ signer: stranger, holder: stranger }), 'holder_binding'],
      ['stale', await present({ iat: nowSeconds() - 4000 }), 'holder_binding'],
      ['bare', vc, 'holder_binding'],
      [
        'issuer',
        await present({}, await issueJwtVc({ issuer: stranger, holder, subject: { service_id: 's-1' } })),
        'issuer_trust',
      ],
      ['tampered', await present({}, `${h}.${b64json(body)}.${s}`), 'signature'],
      [
        'revoked',
        await present(
          {},
          await issueJwtVc({ issuer, holder, subject: { service_id: 's-1' }, credentialStatus: credentialStatus(7) }),
        ),
        'status',
      ],
      [
        'purpose',
        await present(
          {},
          await issueJwtVc({
            issuer,
            holder,
            subject: { service_id: 's-1' },
            credentialStatus: credentialStatus(3, 'suspension'),
          }),
        ),
        'status',
      ],
      [
        'missing claim',
        await present({}, await issueJwtVc({ issuer, holder, subject: { email: 'x@y.example' } })),
        'dcql',
      ],
      [
        'expired',
        await present(
          {},
          await issueJwtVc({ issuer, holder, subject: { service_id: 's-1' }, payload: { exp: nowSeconds() - 100 } }),
        ),
        'validity_period',
      ],
    ];
    for (const [name, vp, check] of cases)
      expect(failedCheck(await verify({ degree: vp }, w3cQuery()))?.check, name).toBe(check);
  });

  it('refuses a VP whose header key and holder DID disagree', async () => {
    const vc = await issueJwtVc({ issuer, holder, subject: { service_id: 's-1' } });
    const vp = await signJwt(
      stranger,
      { typ: 'JWT', kid: holder.kid },
      {
        iss: holder.did,
        aud: CLIENT_ID,
        nonce: NONCE,
        iat: nowSeconds(),
        vp: { type: ['VerifiablePresentation'], verifiableCredential: [vc] },
      },
    );
    expect(failedCheck(await verify({ degree: vp }, w3cQuery()))?.check).toBe('holder_binding');
  });
});

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}
