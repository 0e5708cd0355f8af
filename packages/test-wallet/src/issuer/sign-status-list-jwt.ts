import type { JWK } from 'jose';
import { generateEs256Key } from '../crypto/generate-es256-key.js';
import { encodeUnsecuredJwt, signCompactJwt } from '../crypto/sign-compact-jwt.js';
import type { IssuerSigner } from './create-issuer-signer.js';
import type { StatusListFault } from './status-list-fault.js';

let forgeryKey: Promise<JWK> | undefined;

/**
 * Signs a status list JWT as the issuer, or, when a fault is set, produces the faulty variant: the time and subject
 * faults are applied to the payload, the signature faults replace the issuer's signature.
 */
export async function signStatusListJwt(input: {
  signer: IssuerSigner;
  header: Record<string, unknown> & { alg: string };
  payload: Record<string, unknown> & { iat: number; exp: number };
  fault: StatusListFault | undefined;
}): Promise<string> {
  const payload = { ...input.payload };
  if (input.fault === 'wrong-sub') payload['sub'] = `${String(payload['sub'])}/other`;
  if (input.fault === 'expired') {
    const lifetime = payload.exp - payload.iat;
    payload.iat -= 2 * lifetime;
    payload.exp = payload.iat + lifetime;
    if (typeof payload['nbf'] === 'number') payload['nbf'] = payload.iat;
  }
  if (input.fault === 'unsigned') return encodeUnsecuredJwt(input.header, payload);
  if (input.fault === 'forged') {
    forgeryKey ??= generateEs256Key();
    return signCompactJwt({ header: input.header, payload, privateJwk: await forgeryKey });
  }
  return input.signer.sign(input.header, payload);
}
