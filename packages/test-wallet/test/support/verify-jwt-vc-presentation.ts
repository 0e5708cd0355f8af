import { Bitstring } from '@digitalbazaar/bitstring';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { resolveDidPublicJwk } from '../../src/crypto/resolve-did-key.js';
import type { TrustedIssuer, VerifiedPresentation } from './verifier-types.js';

const IAT_WINDOW_SECONDS = 300;

interface StatusEntry {
  statusPurpose: string;
  statusListIndex: string;
  statusListCredential: string;
}

async function assertStatusValid(entries: StatusEntry[], issuer: TrustedIssuer): Promise<void> {
  for (const entry of entries) {
    const response = await fetch(entry.statusListCredential);
    if (!response.ok) throw new Error('status list unavailable');
    const { payload } = await jwtVerify(await response.text(), await importJWK(issuer.publicJwk, 'ES256'), {
      issuer: issuer.iss,
    });
    const subject = (payload['vc'] as { credentialSubject: { encodedList: string; statusPurpose: string } })
      .credentialSubject;
    if (subject.statusPurpose !== entry.statusPurpose) throw new Error('status list purpose mismatch');
    const bits = new Bitstring({ buffer: await Bitstring.decodeBits({ encoded: subject.encodedList }) });
    if (bits.get(Number(entry.statusListIndex))) throw new Error(`credential status: ${entry.statusPurpose}`);
  }
}

/**
 * Verifies a jwt_vc_json presentation: the VP JWT signed by the holder DID with `aud` = client_id, the request
 * nonce and a fresh `iat`; the VC-JWT signed by a trusted issuer, issued to that holder, and not revoked.
 */
export async function verifyJwtVcPresentation(input: {
  presentation: string;
  trustedIssuers: TrustedIssuer[];
  clientId: string;
  nonce: string;
  now: number;
}): Promise<VerifiedPresentation> {
  const vpHeader = decodeProtectedHeader(input.presentation);
  if (!vpHeader.kid?.startsWith('did:')) throw new Error('the presentation is not a VP JWT signed by a holder DID');
  const holderDid = vpHeader.kid.split('#')[0]!;
  const holderKey = await importJWK(resolveDidPublicJwk(vpHeader.kid), 'ES256');
  const { payload: vp } = await jwtVerify(input.presentation, holderKey, {
    audience: input.clientId,
    issuer: holderDid,
    currentDate: new Date(input.now * 1000),
  });
  if (vp['nonce'] !== input.nonce) throw new Error('VP nonce mismatch');
  if (typeof vp.iat !== 'number' || Math.abs(input.now - vp.iat) > IAT_WINDOW_SECONDS)
    throw new Error('VP iat outside the window');
  const [vcJwt] = ((vp['vp'] as { verifiableCredential?: string[] } | undefined)?.verifiableCredential ??
    []) as string[];
  if (!vcJwt) throw new Error('VP carries no credential');
  const issuer = input.trustedIssuers.find((candidate) => candidate.iss === decodeJwt(vcJwt).iss);
  if (!issuer) throw new Error('issuer is not trusted');
  const { payload } = await jwtVerify(vcJwt, await importJWK(issuer.publicJwk, 'ES256'), {
    issuer: issuer.iss,
    currentDate: new Date(input.now * 1000),
  });
  if (payload.sub !== holderDid) throw new Error('credential is not issued to the presenting holder');
  const vc = payload['vc'] as Record<string, unknown>;
  const status = vc['credentialStatus'] as StatusEntry | StatusEntry[] | undefined;
  await assertStatusValid(status === undefined ? [] : Array.isArray(status) ? status : [status], issuer);
  return {
    format: 'jwt_vc_json',
    issuer: issuer.iss,
    claims: vc['credentialSubject'] as Record<string, unknown>,
    dcql: {
      credential_format: 'jwt_vc_json',
      type: vc['type'] as string[],
      claims: vc as never,
      cryptographic_holder_binding: true,
    },
    bindingProof: input.presentation,
  };
}
