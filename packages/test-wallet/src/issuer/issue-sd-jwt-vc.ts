import type { JWK } from 'jose';
import type { IssuedCredential } from '../common/credential-format.js';
import { epochSeconds, type Clock } from '../common/clock.js';
import { toPublicJwk } from '../crypto/generate-es256-key.js';
import { encodeUnsecuredJwt } from '../crypto/sign-compact-jwt.js';
import type { IssuerKeyReference, IssuerSigner } from './create-issuer-signer.js';
import { createDisclosure } from './create-disclosure.js';

export interface IssueSdJwtVcOptions {
  /** The holder key the credential is bound to (`cnf.jwk`, RFC 7800 §3.2; SD-JWT VC §3.2.2.2). */
  holderPublicJwk: JWK;
  vct: string;
  /** User claims; each one becomes selectively disclosable unless listed in `alwaysDisclosed`. */
  claims: Record<string, unknown>;
  /** Status list index; allocated when omitted. Any number is accepted, also one beyond the list (a hostile case). */
  statusIndex?: number;
  /** Default true: carry a `status.status_list` reference (Token Status List §6.1). */
  withStatus?: boolean;
  /** Default one year. */
  expiresInSeconds?: number;
  /** Default: the issuer's default reference. */
  keyReference?: IssuerKeyReference;
  /** Claim names that stay plain in the issuer-signed JWT. */
  alwaysDisclosed?: string[];
  /** Issuer-side hostile variants, signed by the real issuer key (RFC 9901 §7.1 lists each as a rejection cause). */
  hostile?: {
    /** One digest appears twice in `_sd`. */
    duplicateDigest?: boolean;
    /** An additional, referenced Disclosure whose claim name is `_sd` or `...`. */
    disclosureNamed?: '_sd' | '...';
    /** `alg: none` and no signature. */
    unsigned?: boolean;
  };
}

export interface SdJwtVcIssuerContext {
  signer: IssuerSigner;
  defaultKeyReference: IssuerKeyReference;
  clock: Clock;
  statusReference(index: number): { idx: number; uri: string };
  allocateIndex(): Promise<number>;
}

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/**
 * Issues an SD-JWT VC (SD-JWT VC §3): header `typ: dc+sd-jwt`; payload `iss`, `iat`, `exp`, `vct`, `cnf`, `status`,
 * `_sd_alg: sha-256` and the digests of the Disclosures in `_sd`; serialized `<jwt>~<disclosure>~...~` (RFC 9901 §4).
 */
export async function issueSdJwtVc(
  context: SdJwtVcIssuerContext,
  options: IssueSdJwtVcOptions,
): Promise<IssuedCredential> {
  const keyReference = options.keyReference ?? context.defaultKeyReference;
  const iat = epochSeconds(context.clock);
  const withStatus = options.withStatus ?? true;
  const statusIndex = withStatus ? (options.statusIndex ?? (await context.allocateIndex())) : undefined;

  const plain: Record<string, unknown> = {};
  const disclosures = [];
  for (const [name, value] of Object.entries(options.claims)) {
    if (options.alwaysDisclosed?.includes(name)) plain[name] = value;
    else disclosures.push(createDisclosure(name, value));
  }
  if (options.hostile?.disclosureNamed) disclosures.push(createDisclosure(options.hostile.disclosureNamed, 'hostile'));
  const digests = disclosures.map((disclosure) => disclosure.digest);
  if (options.hostile?.duplicateDigest && digests[0]) digests.push(digests[0]);

  const payload: Record<string, unknown> = {
    iss: context.signer.issuerFor(keyReference),
    iat,
    exp: iat + (options.expiresInSeconds ?? ONE_YEAR_SECONDS),
    vct: options.vct,
    cnf: { jwk: toPublicJwk(options.holderPublicJwk) },
    ...(statusIndex !== undefined ? { status: { status_list: context.statusReference(statusIndex) } } : {}),
    ...plain,
    // Sorted so that the order reveals nothing about the claims (RFC 9901 §4.2.4.1).
    _sd: [...digests].sort(),
    _sd_alg: 'sha-256',
  };
  const header = context.signer.headerFor(keyReference, 'dc+sd-jwt');
  const jwt = options.hostile?.unsigned
    ? encodeUnsecuredJwt(header, payload)
    : await context.signer.sign(header, payload);
  const raw = `${jwt}~${disclosures.map((disclosure) => `${disclosure.encoded}~`).join('')}`;
  return { format: 'dc+sd-jwt', raw, ...(statusIndex !== undefined ? { statusIndex } : {}) };
}
