import type { ListType, StatusPurpose } from './list-definition.js';
import type { StatusBits } from './status-bits.js';

/**
 * The signed forms of a list, one per type:
 * - OAuthStatusList: a Status List Token (draft-ietf-oauth-status-list §5.1), `typ: statuslist+jwt`, served as
 *   `application/statuslist+jwt`; `sub` = the list's URI, `iat`, `exp`, `ttl`, `status_list: {bits, lst}` (lst =
 *   base64url of the ZLIB-deflated statuses).
 * - StatusList2021: a StatusList2021Credential as a VC-JWT (VC Data Model 1.1 §6.3.1: `jti` = vc.id, `sub` =
 *   credentialSubject.id, `nbf` = issuanceDate), encodedList = base64url of the GZIP-compressed bitstring.
 * - BitstringStatusList: a BitstringStatusListCredential (VC Data Model 2.0) secured as a JWT (VC-JOSE-COSE §3.1.1,
 *   `typ: vc+jwt`, the credential is the payload), encodedList = `u` + base64url of the GZIP (multibase).
 * The W3C forms are served as `application/vc+jwt`.
 */
export interface FormInput {
  type: ListType;
  uri: string;
  issuer: string;
  statusPurpose: StatusPurpose;
  bits: StatusBits;
  /** seconds */
  iat: number;
  exp: number;
  ttlSeconds: number;
  /** Compressed statuses, base64url: ZLIB for OAuthStatusList, GZIP for the W3C types. */
  compressed: string;
}

export const MEDIA_TYPES: Record<ListType, string> = {
  OAuthStatusList: 'application/statuslist+jwt',
  StatusList2021: 'application/vc+jwt',
  BitstringStatusList: 'application/vc+jwt',
};

const TYP: Record<ListType, string> = {
  OAuthStatusList: 'statuslist+jwt',
  StatusList2021: 'JWT',
  BitstringStatusList: 'vc+jwt',
};

export const typOf = (type: ListType): string => TYP[type];

/** The compression a type's encoding uses. */
export const compressionOf = (type: ListType): 'zlib' | 'gzip' => (type === 'OAuthStatusList' ? 'zlib' : 'gzip');

export const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
export const STATUS_LIST_2021_CONTEXT = 'https://w3id.org/vc/status-list/2021/v1';
export const CREDENTIALS_V2 = 'https://www.w3.org/ns/credentials/v2';

export function listClaims(input: FormInput): Record<string, unknown> {
  const { uri, issuer, iat, exp } = input;
  switch (input.type) {
    case 'OAuthStatusList':
      return {
        iss: issuer,
        sub: uri,
        iat,
        exp,
        ttl: input.ttlSeconds,
        status_list: { bits: input.bits, lst: input.compressed },
      };
    case 'StatusList2021':
      return {
        iss: issuer,
        sub: `${uri}#list`,
        jti: uri,
        iat,
        nbf: iat,
        exp,
        vc: {
          '@context': [CREDENTIALS_V1, STATUS_LIST_2021_CONTEXT],
          id: uri,
          type: ['VerifiableCredential', 'StatusList2021Credential'],
          issuer,
          issuanceDate: isoSeconds(iat),
          expirationDate: isoSeconds(exp),
          credentialSubject: {
            id: `${uri}#list`,
            type: 'StatusList2021',
            statusPurpose: input.statusPurpose,
            encodedList: input.compressed,
          },
        },
      };
    case 'BitstringStatusList':
      return {
        '@context': [CREDENTIALS_V2],
        id: uri,
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        issuer,
        validFrom: isoSeconds(iat),
        validUntil: isoSeconds(exp),
        credentialSubject: {
          id: `${uri}#list`,
          type: 'BitstringStatusList',
          statusPurpose: input.statusPurpose,
          encodedList: `u${input.compressed}`,
          // Bitstring Status List §2.2: ttl in milliseconds.
          ttl: input.ttlSeconds * 1000,
        },
        iss: issuer,
        iat,
        exp,
      };
  }
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
