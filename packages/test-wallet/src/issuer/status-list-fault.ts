/**
 * Faults the status list server can be told to show, one per "fail closed" line of the verifier checklist
 * (Token Status List §8.3): a verifier under test must treat every one of them as "not valid".
 * - `wrong-sub`: the list token's `sub` differs from the URI the credential references.
 * - `expired`: the list token's `exp` lies in the past.
 * - `unsigned`: `alg: none` and no signature.
 * - `forged`: signed by a key that is not the issuer's, with the issuer's `kid`.
 * - `unavailable`: the endpoint answers 503.
 */
export type StatusListFault = 'wrong-sub' | 'expired' | 'unsigned' | 'forged' | 'unavailable';
