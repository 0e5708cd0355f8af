/**
 * One verification check and its outcome (security checklist, OpenID4VP verifier lines). Every check run on a
 * presentation is recorded on the session, so that an operator (and the portal, through the status `failure`)
 * can see which one failed and why. Reasons name what failed, never a claim value, a nonce or a token.
 */
export type CheckName =
  | 'response'
  | 'decryption'
  | 'wallet_error'
  | 'dcql'
  | 'replay'
  | 'format'
  | 'issuer_trust'
  | 'signature'
  | 'disclosures'
  | 'holder_binding'
  | 'nonce'
  | 'audience'
  | 'validity_period'
  | 'status';

export interface CheckResult {
  check: CheckName;
  ok: boolean;
  reason: string | null;
  /** The DCQL credential query the check was about, when it concerns one presentation. */
  credentialQueryId?: string;
}

export const pass = (check: CheckName, credentialQueryId?: string): CheckResult =>
  credentialQueryId === undefined
    ? { check, ok: true, reason: null }
    : { check, ok: true, reason: null, credentialQueryId };

export const fail = (check: CheckName, reason: string, credentialQueryId?: string): CheckResult =>
  credentialQueryId === undefined ? { check, ok: false, reason } : { check, ok: false, reason, credentialQueryId };

/** Thrown inside a verifier to stop at the first failed check; carries the result to record. */
export class CheckFailure extends Error {
  constructor(readonly result: CheckResult) {
    super(`${result.check}: ${result.reason}`);
    this.name = 'CheckFailure';
  }
}

export const failWith = (check: CheckName, reason: string, credentialQueryId?: string): never => {
  throw new CheckFailure(fail(check, reason, credentialQueryId));
};

/** The failure shown on the session status (extension of 000 §4.1, see README). */
export interface SessionFailure {
  check: CheckName;
  reason: string;
}
