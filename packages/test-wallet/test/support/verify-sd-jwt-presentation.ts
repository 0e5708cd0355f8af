import { createHash } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import type { TrustedIssuer, VerifiedPresentation } from './verifier-types.js';

const IAT_WINDOW_SECONDS = 300;
const STATUS_LIST_SKEW_SECONDS = 5;

function collectDigests(value: unknown, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item && typeof item === 'object' && '...' in item)
        into.push(String((item as Record<string, unknown>)['...']));
      collectDigests(item, into);
    }
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '_sd' && Array.isArray(child)) into.push(...child.map(String));
      else collectDigests(child, into);
    }
  }
}

/**
 * Verifies one SD-JWT VC presentation the way the project notes ask: the library checks the issuer signature, the
 * status list and the KB-JWT signature, nonce and sd_hash; this adds what it leaves out (RFC 9901 §7.1, §7.3):
 * every Disclosure referenced exactly once, no reserved claim names, no duplicate digests, KB-JWT required, its
 * `typ`, `aud` and `iat`.
 */
export async function verifySdJwtPresentation(input: {
  presentation: string;
  trustedIssuers: TrustedIssuer[];
  clientId: string;
  nonce: string;
  now: number;
}): Promise<VerifiedPresentation> {
  const parts = input.presentation.split('~');
  const keyBinding = parts[parts.length - 1];
  if (!keyBinding) throw new Error('key binding JWT missing');
  const issuerJwt = parts[0]!;
  const header = decodeProtectedHeader(issuerJwt);
  if (header.alg === 'none' || header.typ !== 'dc+sd-jwt') throw new Error('issuer JWT alg or typ not acceptable');
  const payload = decodeJwt(issuerJwt);
  const issuer = input.trustedIssuers.find((candidate) => candidate.iss === payload.iss);
  if (!issuer) throw new Error('issuer is not trusted');

  const digests: string[] = [];
  collectDigests(payload, digests);
  if (new Set(digests).size !== digests.length) throw new Error('duplicate digest in the issuer-signed JWT');
  const disclosures = parts.slice(1, -1);
  const seen = new Set<string>();
  for (const disclosure of disclosures) {
    const disclosureDigest = createHash('sha256').update(disclosure).digest('base64url');
    if (!digests.includes(disclosureDigest)) throw new Error('a disclosure is not referenced by any digest');
    if (seen.has(disclosureDigest)) throw new Error('a disclosure is presented twice');
    seen.add(disclosureDigest);
    const decoded = JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8')) as unknown[];
    if (decoded.length === 3 && (decoded[1] === '_sd' || decoded[1] === '...'))
      throw new Error('a disclosure uses a reserved claim name');
  }

  const kbHeader = decodeProtectedHeader(keyBinding);
  const kbPayload = decodeJwt(keyBinding);
  if (kbHeader.typ !== 'kb+jwt') throw new Error('key binding JWT typ is not kb+jwt');
  if (kbPayload.aud !== input.clientId) throw new Error('key binding JWT aud is not the client_id');
  if (typeof kbPayload.iat !== 'number' || Math.abs(input.now - kbPayload.iat) > IAT_WINDOW_SECONDS)
    throw new Error('key binding JWT iat outside the window');

  const cnfJwk = (payload['cnf'] as { jwk?: JWK } | undefined)?.jwk;
  if (!cnfJwk) throw new Error('credential has no cnf.jwk');
  const sdJwt = new SDJwtVcInstance({
    hasher: digest,
    verifier: await ES256.getVerifier(issuer.publicJwk),
    kbVerifier: await ES256.getVerifier(cnfJwk),
  });
  // The status list is fetched and signed after `now` was taken, possibly in the next second: @sd-jwt/core checks its
  // `iat` against the same `currentDate`, so allow a few seconds of skew, as a deployed verifier would.
  const verified = await sdJwt.verify(input.presentation, {
    keyBindingNonce: input.nonce,
    currentDate: input.now,
    skewSeconds: STATUS_LIST_SKEW_SECONDS,
  });
  const claims = verified.payload as unknown as Record<string, unknown>;
  return {
    format: 'dc+sd-jwt',
    issuer: String(payload.iss),
    claims,
    dcql: {
      credential_format: 'dc+sd-jwt',
      vct: String(claims['vct']),
      claims: claims as never,
      cryptographic_holder_binding: true,
    },
    bindingProof: keyBinding,
  };
}
