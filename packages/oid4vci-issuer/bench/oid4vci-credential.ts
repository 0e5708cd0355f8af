import { createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { serverInDataDir } from '../../../bench/lib/server-setup.js';
import type { Scenario, ScenarioSetup } from '../../../bench/lib/types.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact ES256 JWS made synchronously (autocannon's setupRequest is synchronous). */
function es256(key: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${input}.${signature}`;
}

/**
 * POST /oid4vci/nonce then POST /oid4vci/credential with one jwt proof over that nonce and a DPoP proof (issue 19),
 * against the issuer on PostgreSQL (servers/oid4vci-credential.ts): access token verified (RS256) with DPoP (ES256),
 * proof verified (ES256), nonce spent in the database, pipeline advanced and claims read (5 claims from the sealed
 * bag), a status entry allocated, the SD-JWT VC signed (ES256) by the key manager, issuance recorded, audited.
 * The harness counts requests: one nonce and one credential request make a pair, so the goal (≥ 0.35 of
 * one ES256 verify + one ES256 sign per core, per pair) is ≥ 0.70 per request.
 */
export const oid4vciCredential: Scenario = {
  name: 'oid4vci-credential',
  description:
    'POST /oid4vci/nonce + POST /oid4vci/credential (1 jwt proof, DPoP, SD-JWT VC with 5 claims, status entry), PostgreSQL',
  kind: 'http',
  baseline: 'es256-verify-sign',
  goal: {
    minRatio: 0.7,
    basis: 'per-core',
    text: 'per pair (nonce + credential) at least 35% of one ES256 verify + sign per core, i.e. 70% per request',
  },
  connections: 20,
  setup: (context) =>
    serverInDataDir(
      '../../packages/oid4vci-issuer/bench/servers/oid4vci-credential',
      context,
      { readyTimeoutMs: 180_000 },
      async (child, dataDir) => {
        const handed = JSON.parse(await readFile(join(dataDir, 'credential.json'), 'utf8')) as PairInputs;
        return { url: child.url, requests: credentialPairRequests(child.url, handed) };
      },
    ),
};

/** What the requests of a pair need: access tokens (used in turn), the DPoP and holder keys, the configuration. */
export interface PairInputs {
  tokens: string[];
  dpopKey: JWK;
  holderKey: JWK;
  configuration: string;
}

/**
 * The two requests of a pair, as each connection repeats them: the nonce, then the credential request with a jwt
 * proof over that nonce and a fresh DPoP proof bound to the access token (`ath`). Shared with the floor.
 */
export function credentialPairRequests(url: string, handed: PairInputs): NonNullable<ScenarioSetup['requests']> {
  const dpopKey = createPrivateKey({ key: handed.dpopKey as never, format: 'jwk' });
  const holderKey = createPrivateKey({ key: handed.holderKey as never, format: 'jwk' });
  const publicJwk = ({ kty, crv, x, y }: JWK) => ({ kty, crv, x, y });
  const issuer = url.replace(/\/$/, '');
  const credentialUrl = `${issuer}/oid4vci/credential`;
  let next = 0;
  return [
    {
      method: 'POST',
      path: '/oid4vci/nonce',
      onResponse: (_status: number, body: string, context: Record<string, unknown>) => {
        context.nonce = (JSON.parse(body) as { c_nonce: string }).c_nonce;
      },
    },
    {
      method: 'POST',
      path: '/oid4vci/credential',
      setupRequest: (request: Record<string, unknown>, context: Record<string, unknown>) => {
        const token = handed.tokens[next++ % handed.tokens.length]!;
        const iat = Math.floor(Date.now() / 1000);
        const proof = es256(
          holderKey,
          { typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: publicJwk(handed.holderKey) },
          { aud: issuer, iat, nonce: context.nonce },
        );
        const dpop = es256(
          dpopKey,
          { typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk(handed.dpopKey) },
          {
            htm: 'POST',
            htu: credentialUrl,
            iat,
            jti: randomBytes(12).toString('base64url'),
            ath: createHash('sha256').update(token).digest('base64url'),
          },
        );
        return {
          ...request,
          headers: { authorization: `DPoP ${token}`, dpop, 'content-type': 'application/json' },
          body: JSON.stringify({ credential_configuration_id: handed.configuration, proofs: { jwt: [proof] } }),
        };
      },
    },
  ] as never;
}
