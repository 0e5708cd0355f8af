import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { signJwt } from '@tessera/platform';
import { signingKeyAlias } from '@tessera/token-service';
import type { JwtSignerJwk } from '@openid4vc/oauth2';
import { json, PID, startBed, TENANT, VC, type Bed } from './support.js';
import { createLibraryWallet, type LibraryWallet } from './wallet.js';

const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  address: { locality: 'Berlin' },
};

/**
 * Issue 19 step 4: every refusal in its standard error (RFC 6749 §5.2 at the token endpoint, OpenID4VCI 1.0
 * §8.3.1.2 / §9.3 / §11.3 at the issuer, RFC 6750 / RFC 9449 for the access token), never a 5xx.
 */
describe.each(DATABASE_KINDS)('refusals (%s)', (kind) => {
  let bed: Bed;
  let wallet: LibraryWallet;
  beforeAll(async () => {
    bed = await startBed(kind, { tokenService: { oid4vci: { requireDpop: true, txCodeMaxAttempts: 3 } as never } });
    wallet = createLibraryWallet();
  });
  afterAll(() => bed?.close());

  async function offer(ids = [PID], pinLength?: number) {
    const res = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.tokens.admin}` },
      body: {
        credential_configuration_ids: ids,
        credentialDataSupplierInput: CLAIMS,
        ...(pinLength ? { pinLength } : {}),
      },
    });
    expect(res.status).toBe(200);
    const offerObject = (await json(new URL(res.body.uri as string).searchParams.get('credential_offer_uri')!)).body;
    const grant = (offerObject.grants as Record<string, Record<string, string>>)[PRE_AUTH]!;
    return { code: grant['pre-authorized_code']!, pin: res.body.userPin as string | undefined };
  }

  async function redeem(code: string, signer: JwtSignerJwk, txCode?: string) {
    const url = `${bed.tokenService}/token`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await wallet.dpopProof(signer, 'POST', url, ''),
      },
      body: new URLSearchParams({
        grant_type: PRE_AUTH,
        'pre-authorized_code': code,
        ...(txCode ? { tx_code: txCode } : {}),
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** A session with a DPoP-bound token, ready for credential requests. */
  async function session(ids = [PID]) {
    const { code } = await offer(ids);
    const dpop = await wallet.newSigner();
    const token = await redeem(code, dpop);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    return { accessToken: token.body.access_token as string, dpop };
  }

  async function nonce() {
    return (await json(`${bed.url}/oid4vci/nonce`, { method: 'POST' })).body.c_nonce as string;
  }

  async function post(path: string, body: unknown, s: { accessToken: string; dpop: JwtSignerJwk }, scheme = 'DPoP') {
    const url = `${bed.url}${path}`;
    return json(url, {
      method: 'POST',
      body,
      headers: {
        authorization: `${scheme} ${s.accessToken}`,
        dpop: await wallet.dpopProof(s.dpop, 'POST', url, s.accessToken),
      },
    });
  }

  async function credentialRequest(
    s: { accessToken: string; dpop: JwtSignerJwk },
    proof: (holder: JwtSignerJwk) => Promise<unknown>,
    over: Record<string, unknown> = {},
  ) {
    const holder = await wallet.newSigner();
    return post(
      '/oid4vci/credential',
      { credential_configuration_id: PID, proofs: { jwt: [await proof(holder)] }, ...over },
      s,
    );
  }

  it('issues with a valid request (the baseline of the refusals below)', async () => {
    const s = await session();
    const n = await nonce();
    const res = await credentialRequest(s, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: n }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('wrong tx_code: invalid_grant, and the code locks after the allowed attempts', async () => {
    const { code, pin } = await offer([PID], 6);
    const dpop = await wallet.newSigner();
    const wrong = pin === '000000' ? '111111' : '000000';
    for (let i = 0; i < 3; i++) {
      const res = await redeem(code, dpop, wrong);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
    // Locked: even the right PIN is refused now.
    const locked = await redeem(code, dpop, pin);
    expect(locked.status).toBe(400);
    expect(locked.body.error).toBe('invalid_grant');
  });

  it('reused pre-authorized code (and its tx_code): invalid_grant', async () => {
    const { code, pin } = await offer([PID], 6);
    const dpop = await wallet.newSigner();
    expect((await redeem(code, dpop, pin)).status).toBe(200);
    const again = await redeem(code, dpop, pin);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('a stale nonce (spent, or never issued): invalid_nonce', async () => {
    const s = await session();
    const n = await nonce();
    expect((await credentialRequest(s, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: n }))).status).toBe(200);
    const s2 = await session();
    for (const stale of [n, 'never-issued-nonce']) {
      const res = await credentialRequest(s2, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: stale }));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_nonce');
    }
    const none = await credentialRequest(s2, (h) => wallet.proofJwt(h, { aud: bed.url }));
    expect(none.body.error).toBe('invalid_nonce');
  });

  it('a proof with the wrong aud, the wrong typ, an old iat, or a forged signature: invalid_proof', async () => {
    const s = await session();
    const cases: ((h: JwtSignerJwk, n: string) => Promise<string>)[] = [
      (h, n) => wallet.proofJwt(h, { aud: 'https://other-issuer.example', nonce: n }),
      (h, n) => wallet.proofJwt(h, { aud: bed.url, nonce: n }, { typ: 'JWT' }),
      (h, n) => wallet.proofJwt(h, { aud: bed.url, nonce: n, iat: Math.floor(Date.now() / 1000) - 3600 }),
      async (h, n) => {
        const jwt = await wallet.proofJwt(h, { aud: bed.url, nonce: n });
        const [header, payload] = jwt.split('.');
        return `${header}.${payload}.${'A'.repeat(86)}`;
      },
    ];
    for (const make of cases) {
      const n = await nonce();
      const res = await credentialRequest(s, (h) => make(h, n));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('invalid_proof');
    }
  });

  it('missing proof: invalid_proof; too many proofs or a malformed request: invalid_credential_request', async () => {
    const s = await session();
    const missing = await post('/oid4vci/credential', { credential_configuration_id: PID }, s);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_proof');
    const n = await nonce();
    const many = await post(
      '/oid4vci/credential',
      {
        credential_configuration_id: PID,
        proofs: {
          jwt: await Promise.all(
            Array.from({ length: 11 }, async () =>
              wallet.proofJwt(await wallet.newSigner(), { aud: bed.url, nonce: n }),
            ),
          ),
        },
      },
      s,
    );
    expect(many.body.error).toBe('invalid_credential_request');
    for (const body of [
      [],
      'x',
      { credential_configuration_id: 7 },
      { credential_configuration_id: PID, credential_identifier: PID },
    ]) {
      const res = await post('/oid4vci/credential', body, s);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_credential_request');
    }
  });

  it('unknown configuration: unknown_credential_configuration; one the token does not cover: credential_request_denied', async () => {
    const s = await session();
    const n = await nonce();
    const unknown = await credentialRequest(s, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: n }), {
      credential_configuration_id: 'no.such.configuration',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('unknown_credential_configuration');
    const other = await credentialRequest(s, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: n }), {
      credential_configuration_id: VC,
    });
    expect(other.body.error).toBe('credential_request_denied');
  });

  it('no DPoP when DPoP is required: 401 with the DPoP challenge', async () => {
    const s = await session();
    const url = `${bed.url}/oid4vci/credential`;
    // The DPoP-bound token as a bearer token.
    const asBearer = await json(url, {
      method: 'POST',
      body: { credential_configuration_id: PID },
      headers: { authorization: `Bearer ${s.accessToken}` },
    });
    expect(asBearer.status).toBe(401);
    expect(asBearer.body.error).toBe('invalid_token');
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    // The DPoP scheme without its proof, or with a proof of another key.
    const noProof = await json(url, {
      method: 'POST',
      body: { credential_configuration_id: PID },
      headers: { authorization: `DPoP ${s.accessToken}` },
    });
    expect(noProof.status).toBe(401);
    expect(noProof.body.error).toBe('invalid_dpop_proof');
    const otherKey = await post(
      '/oid4vci/credential',
      { credential_configuration_id: PID },
      { ...s, dpop: await wallet.newSigner() },
    );
    expect(otherKey.status).toBe(401);
    expect(otherKey.body.error).toBe('invalid_dpop_proof');
    // A token that is not DPoP-bound at all (minted with the token service's key): refused when DPoP is required.
    const unbound = await mint({});
    const res = await json(url, { method: 'POST', body: {}, headers: { authorization: `Bearer ${unbound}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    // No token at all.
    const anonymous = await json(url, { method: 'POST', body: {} });
    expect(anonymous.status).toBe(401);
  });

  /** An access token signed with the tenant's token key, claims chosen by the test. */
  async function mint(over: Record<string, unknown>) {
    const now = Math.floor(Date.now() / 1000);
    return signJwt(
      bed.t.platform.keys,
      signingKeyAlias(TENANT),
      {
        iss: bed.tokenService,
        aud: bed.url,
        sub: 'issuance:x',
        tenant_id: TENANT,
        issuance_session: 'x',
        jti: `j-${Math.random()}`,
        iat: now,
        exp: now + 300,
        authorization_details: [{ type: 'openid_credential', credential_configuration_id: PID }],
        ...over,
      },
      { typ: 'at+jwt' },
    );
  }

  it('an access token for another credential issuer (aud), another tenant, or expired: 401 invalid_token', async () => {
    bed.config.dpopRequired = false;
    try {
      for (const over of [
        { aud: 'https://other-issuer.example' },
        { tenant_id: 'other' },
        { exp: Math.floor(Date.now() / 1000) - 60 },
        { iss: 'https://other-token-service.example' },
      ]) {
        const token = await mint(over);
        const res = await json(`${bed.url}/oid4vci/credential`, {
          method: 'POST',
          body: {},
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status, JSON.stringify(over)).toBe(401);
        expect(res.body.error).toBe('invalid_token');
      }
    } finally {
      bed.config.dpopRequired = true;
    }
  });

  it('a token of another session: its transaction_id and notification_id are unknown to it', async () => {
    const a = await session();
    const n = await nonce();
    const issued = await credentialRequest(a, (h) => wallet.proofJwt(h, { aud: bed.url, nonce: n }));
    expect(issued.status).toBe(200);
    const b = await session();
    const notification = await post(
      '/oid4vci/notification',
      { notification_id: issued.body.notification_id, event: 'credential_accepted' },
      b,
    );
    expect(notification.status).toBe(400);
    expect(notification.body.error).toBe('invalid_notification_id');
    const bad = await post('/oid4vci/notification', { notification_id: issued.body.notification_id, event: 'nope' }, a);
    expect(bad.body.error).toBe('invalid_notification_request');
    const deferred = await post('/oid4vci/deferredCredential', { transaction_id: 'not-a-transaction' }, b);
    expect(deferred.status).toBe(400);
    expect(deferred.body.error).toBe('invalid_transaction_id');
    const ok = await post(
      '/oid4vci/notification',
      { notification_id: issued.body.notification_id, event: 'credential_accepted' },
      a,
    );
    expect(ok.status).toBe(204);
  });
});
