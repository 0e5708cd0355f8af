import { randomUUID } from 'node:crypto';
import type { IssuedCredential } from '../common/credential-format.js';
import { epochSeconds, type Clock } from '../common/clock.js';
import type { IssuerKeyReference, IssuerSigner } from './create-issuer-signer.js';
import { CREDENTIALS_V1_CONTEXT, STATUS_LIST_2021_CONTEXT, type StatusPurpose } from './sign-status-list-credential.js';

export interface IssueJwtVcOptions {
  /** The holder's DID; becomes `sub` and `credentialSubject.id`, so the VP signed with its key binds the holder. */
  holderDid: string;
  /** The credential type added after `VerifiableCredential`. */
  type: string;
  claims: Record<string, unknown>;
  /** Status list index; allocated when omitted. */
  statusIndex?: number;
  /** Default true. */
  withStatus?: boolean;
  /** Default `['revocation']`; with both, `credentialStatus` is an array of two entries with the same index. */
  statusPurposes?: StatusPurpose[];
  /** Default one year. */
  expiresInSeconds?: number;
  keyReference?: IssuerKeyReference;
}

export interface JwtVcIssuerContext {
  signer: IssuerSigner;
  defaultKeyReference: IssuerKeyReference;
  clock: Clock;
  statusListUri(purpose: StatusPurpose): string;
  allocateIndex(): Promise<number>;
}

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** A StatusList2021Entry (StatusList2021 §2.1): `statusListIndex` is a string, `statusListCredential` the list URL. */
function statusEntry(uri: string, purpose: StatusPurpose, index: number): Record<string, string> {
  return {
    id: `${uri}#${index}`,
    type: 'StatusList2021Entry',
    statusPurpose: purpose,
    statusListIndex: String(index),
    statusListCredential: uri,
  };
}

/**
 * Issues a W3C VC as a JWT for the `jwt_vc_json` format (VC Data Model 1.1 §6.3.1): registered claims mirror the
 * credential (`iss` = issuer, `sub` = credentialSubject.id, `jti` = id, `nbf` = issuanceDate, `exp` =
 * expirationDate) and the credential itself is the `vc` claim.
 */
export async function issueJwtVc(context: JwtVcIssuerContext, options: IssueJwtVcOptions): Promise<IssuedCredential> {
  const keyReference = options.keyReference ?? context.defaultKeyReference;
  const iat = epochSeconds(context.clock);
  const exp = iat + (options.expiresInSeconds ?? ONE_YEAR_SECONDS);
  const withStatus = options.withStatus ?? true;
  const statusIndex = withStatus ? (options.statusIndex ?? (await context.allocateIndex())) : undefined;
  const purposes = options.statusPurposes ?? ['revocation'];
  const entries =
    statusIndex === undefined
      ? []
      : purposes.map((purpose) => statusEntry(context.statusListUri(purpose), purpose, statusIndex));
  const issuer = context.signer.issuerFor(keyReference);
  const id = `urn:uuid:${randomUUID()}`;
  const payload = {
    iss: issuer,
    sub: options.holderDid,
    jti: id,
    iat,
    nbf: iat,
    exp,
    vc: {
      '@context': [CREDENTIALS_V1_CONTEXT, ...(entries.length > 0 ? [STATUS_LIST_2021_CONTEXT] : [])],
      id,
      type: ['VerifiableCredential', options.type],
      issuer,
      issuanceDate: new Date(iat * 1000).toISOString(),
      expirationDate: new Date(exp * 1000).toISOString(),
      credentialSubject: { id: options.holderDid, ...options.claims },
      ...(entries.length === 1
        ? { credentialStatus: entries[0] }
        : entries.length > 1
          ? { credentialStatus: entries }
          : {}),
    },
  };
  const raw = await context.signer.sign(context.signer.headerFor(keyReference, 'JWT'), payload);
  return { format: 'jwt_vc_json', raw, ...(statusIndex !== undefined ? { statusIndex } : {}) };
}
