import { StatusList } from '@sd-jwt/jwt-status-list';
import type { Clock } from '../common/clock.js';
import { epochSeconds } from '../common/clock.js';
import type { IssuerKeyReference, IssuerSigner } from './create-issuer-signer.js';
import { TOKEN_STATUS_LIST_SIZE, type StatusRegistry } from './create-status-registry.js';
import type { StatusListFault } from './status-list-fault.js';
import { signStatusListJwt } from './sign-status-list-jwt.js';

/** Status values of the Token Status List (§7.1). */
const STATUS_VALUE = { valid: 0x00, revoked: 0x01, suspended: 0x02 } as const;

/**
 * The Status List Token (Token Status List §5.1): header `typ: statuslist+jwt`; payload `sub` = the list URI the
 * credentials reference, `iat`, `exp`, `ttl`, and `status_list` = { bits: 2, lst: zlib-deflated, base64url }.
 */
export async function signTokenStatusList(input: {
  signer: IssuerSigner;
  keyReference: IssuerKeyReference;
  registry: StatusRegistry;
  uri: string;
  ttlSeconds: number;
  validitySeconds: number;
  clock: Clock;
  fault: StatusListFault | undefined;
}): Promise<string> {
  const list = new StatusList(new Array<number>(TOKEN_STATUS_LIST_SIZE).fill(0), 2);
  for (const { index, status } of await input.registry.entries('dc+sd-jwt')) {
    if (index < TOKEN_STATUS_LIST_SIZE) list.setStatus(index, STATUS_VALUE[status]);
  }
  const iat = epochSeconds(input.clock);
  return signStatusListJwt({
    signer: input.signer,
    header: input.signer.headerFor(input.keyReference, 'statuslist+jwt'),
    payload: {
      iss: input.signer.issuerFor(input.keyReference),
      sub: input.uri,
      iat,
      exp: iat + input.validitySeconds,
      ttl: input.ttlSeconds,
      status_list: { bits: list.getBitsPerStatus(), lst: list.compressStatusList() },
    },
    fault: input.fault,
  });
}
