import { createHash, randomBytes } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { base64url, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * Hand-made credentials for the verifier's unit tests: an issuer and a holder with ES256 keys, SD-JWT VCs and
 * jwt_vc_json presentations, status lists of both kinds. Each builder takes the knob a hostile case needs (the
 * end-to-end tests use the project's test wallet instead).
 */
export interface TestKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  did: string;
  kid: string;
}

export async function newKey(): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const publicJwk = { kty, crv, x, y } as JWK;
  const did = `did:jwk:${base64url.encode(JSON.stringify(publicJwk))}`;
  return { privateKey, publicJwk, did, kid: `${did}#0` };
}

export const b64json = (value: unknown) => base64url.encode(JSON.stringify(value));
export const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

export async function signJwt(
  key: TestKey,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', ...header } as never).sign(key.privateKey);
}

export function disclosure(name: string | null, value: unknown): { encoded: string; digest: string } {
  const salt = randomBytes(16).toString('base64url');
  const encoded = b64json(name === null ? [salt, value] : [salt, name, value]);
  return { encoded, digest: sha256(encoded) };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface IssueSdJwtOptions {
  issuer: TestKey;
  holder: TestKey;
  vct?: string;
  claims: Record<string, unknown>;
  status?: { idx: number; uri: string };
  payload?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Extra disclosures (already encoded) whose digests go into `_sd`. */
  extraDigests?: string[];
  extraDisclosures?: string[];
}

/** `<issuer-jwt>~<d1>~...~` with every claim selectively disclosable (RFC 9901 §4). */
export async function issueSdJwt(o: IssueSdJwtOptions): Promise<string> {
  const ds = Object.entries(o.claims).map(([name, value]) => disclosure(name, value));
  const payload = {
    iss: o.issuer.did,
    iat: nowSeconds() - 10,
    exp: nowSeconds() + 3600,
    vct: o.vct ?? 'urn:test:vct',
    cnf: { jwk: o.holder.publicJwk },
    ...(o.status ? { status: { status_list: o.status } } : {}),
    _sd: [...ds.map((d) => d.digest), ...(o.extraDigests ?? [])].sort(),
    _sd_alg: 'sha-256',
    ...o.payload,
  };
  const jwt = await signJwt(o.issuer, { typ: 'dc+sd-jwt', kid: o.issuer.kid, ...o.header }, payload);
  return `${jwt}~${[...ds.map((d) => d.encoded), ...(o.extraDisclosures ?? [])].map((d) => `${d}~`).join('')}`;
}

export interface PresentOptions {
  holder: TestKey;
  aud: string;
  nonce: string;
  iat?: number;
  typ?: string;
  /** Keep only the disclosures whose claim name passes. */
  keep?: (name: string) => boolean;
  /** Changes the SD-JWT part before the KB-JWT is computed over it. */
  alter?: (sdJwt: string) => string;
}

/** Adds a KB-JWT (RFC 9901 §4.3) to an issued SD-JWT. */
export async function presentSdJwt(issued: string, o: PresentOptions): Promise<string> {
  const [jwt, ...rest] = issued.split('~').filter((p, i, all) => i < all.length - 1 || p !== '');
  const kept = rest.filter((d) => {
    const decoded = JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[];
    return !o.keep || decoded.length !== 3 || o.keep(String(decoded[1]));
  });
  let sdJwt = `${jwt}~${kept.map((d) => `${d}~`).join('')}`;
  if (o.alter) sdJwt = o.alter(sdJwt);
  const kb = await signJwt(
    o.holder,
    { typ: o.typ ?? 'kb+jwt' },
    { iat: o.iat ?? nowSeconds(), aud: o.aud, nonce: o.nonce, sd_hash: sha256(sdJwt) },
  );
  return `${sdJwt}${kb}`;
}

export async function issueJwtVc(o: {
  issuer: TestKey;
  holder: TestKey;
  type?: string;
  subject: Record<string, unknown>;
  credentialStatus?: Record<string, unknown>;
  payload?: Record<string, unknown>;
}): Promise<string> {
  return signJwt(
    o.issuer,
    { typ: 'JWT', kid: o.issuer.kid },
    {
      iss: o.issuer.did,
      sub: o.holder.did,
      nbf: nowSeconds() - 10,
      exp: nowSeconds() + 3600,
      vc: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiableCredential', o.type ?? 'TestCredential'],
        credentialSubject: { id: o.holder.did, ...o.subject },
        ...(o.credentialStatus ? { credentialStatus: o.credentialStatus } : {}),
      },
      ...o.payload,
    },
  );
}

export async function presentJwtVc(
  vcJwt: string,
  o: { holder: TestKey; aud: string; nonce: string; iat?: number; signer?: TestKey },
): Promise<string> {
  const signer = o.signer ?? o.holder;
  return signJwt(
    signer,
    { typ: 'JWT', kid: signer.kid },
    {
      iss: signer.did,
      aud: o.aud,
      nonce: o.nonce,
      iat: o.iat ?? nowSeconds(),
      exp: (o.iat ?? nowSeconds()) + 300,
      vp: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiablePresentation'],
        verifiableCredential: [vcJwt],
      },
    },
  );
}

/** Token Status List JWT (draft-ietf-oauth-status-list §5): statuses of `bits` bits, LSB first. */
export async function tokenStatusList(
  issuer: TestKey,
  uri: string,
  statuses: number[],
  o: { bits?: 1 | 2 | 4 | 8; payload?: Record<string, unknown>; header?: Record<string, unknown> } = {},
): Promise<string> {
  const bits = o.bits ?? 1;
  const bytes = Buffer.alloc(Math.ceil((statuses.length * bits) / 8));
  statuses.forEach((s, i) => {
    const bit = i * bits;
    bytes[bit >> 3] = bytes[bit >> 3]! | (s << (bit & 7));
  });
  return signJwt(
    issuer,
    { typ: 'statuslist+jwt', kid: issuer.kid, ...o.header },
    {
      iss: issuer.did,
      sub: uri,
      iat: nowSeconds(),
      exp: nowSeconds() + 3600,
      ttl: 300,
      status_list: { bits, lst: deflateSync(bytes).toString('base64url') },
      ...o.payload,
    },
  );
}

/** A BitstringStatusListCredential as VC-JWT (W3C Bitstring Status List §2.2): bit 0 is the leftmost. */
export async function bitstringStatusList(
  issuer: TestKey,
  uri: string,
  setIndexes: number[],
  o: { length?: number; purpose?: string; payload?: Record<string, unknown> } = {},
): Promise<string> {
  const bytes = Buffer.alloc((o.length ?? 131072) / 8);
  for (const i of setIndexes) bytes[i >> 3] = bytes[i >> 3]! | (0x80 >> (i & 7));
  return signJwt(
    issuer,
    { typ: 'JWT', kid: issuer.kid },
    {
      iss: issuer.did,
      nbf: nowSeconds() - 10,
      exp: nowSeconds() + 3600,
      vc: {
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        id: uri,
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        credentialSubject: {
          id: `${uri}#list`,
          type: 'BitstringStatusList',
          statusPurpose: o.purpose ?? 'revocation',
          encodedList: `u${gzipSync(bytes).toString('base64url')}`,
        },
      },
      ...o.payload,
    },
  );
}
