import { Bitstring } from '@digitalbazaar/bitstring';
import type { Clock } from '../common/clock.js';
import { epochSeconds } from '../common/clock.js';
import type { IssuerKeyReference, IssuerSigner } from './create-issuer-signer.js';
import { W3C_STATUS_LIST_SIZE, type StatusRegistry } from './create-status-registry.js';
import type { StatusListFault } from './status-list-fault.js';
import { signStatusListJwt } from './sign-status-list-jwt.js';

export type StatusPurpose = 'revocation' | 'suspension';

export const STATUS_LIST_2021_CONTEXT = 'https://w3id.org/vc/status-list/2021/v1';
export const CREDENTIALS_V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';

/**
 * A StatusList2021Credential secured as a VC-JWT (VC Data Model 1.1 §6.3.1: `jti` ↔ vc.id, `sub` ↔
 * credentialSubject.id, `iss` ↔ issuer, `nbf` ↔ issuanceDate). `encodedList` is the GZIP-compressed bitstring in
 * base64url (StatusList2021 §2.1); bit 0 is the left-most bit of the first byte.
 */
export async function signStatusListCredential(input: {
  signer: IssuerSigner;
  keyReference: IssuerKeyReference;
  registry: StatusRegistry;
  uri: string;
  purpose: StatusPurpose;
  validitySeconds: number;
  clock: Clock;
  fault: StatusListFault | undefined;
}): Promise<string> {
  const bitstring = new Bitstring({ length: W3C_STATUS_LIST_SIZE });
  const flagged = input.purpose === 'revocation' ? 'revoked' : 'suspended';
  for (const { index, status } of await input.registry.entries('jwt_vc_json')) {
    if (status === flagged && index < W3C_STATUS_LIST_SIZE) bitstring.set(index, true);
  }
  const iat = epochSeconds(input.clock);
  const issuer = input.signer.issuerFor(input.keyReference);
  const subjectId = `${input.uri}#list`;
  return signStatusListJwt({
    signer: input.signer,
    header: input.signer.headerFor(input.keyReference, 'JWT'),
    payload: {
      iss: issuer,
      sub: subjectId,
      jti: input.uri,
      iat,
      nbf: iat,
      exp: iat + input.validitySeconds,
      vc: {
        '@context': [CREDENTIALS_V1_CONTEXT, STATUS_LIST_2021_CONTEXT],
        id: input.uri,
        type: ['VerifiableCredential', 'StatusList2021Credential'],
        issuer,
        issuanceDate: new Date(iat * 1000).toISOString(),
        credentialSubject: {
          id: subjectId,
          type: 'StatusList2021',
          statusPurpose: input.purpose,
          encodedList: await bitstring.encodeBits(),
        },
      },
    },
    fault: input.fault,
  });
}
