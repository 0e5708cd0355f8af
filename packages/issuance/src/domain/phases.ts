/** The lifecycle phases of an issuance session, in order (001 §2.2). */
export const PHASES = [
  'OID4VCI_START',
  'OID4VCI_AUTHORIZATION',
  'OID4VCI_PRE_AUTHORIZED',
  'OID4VCI_TOKEN',
  'OID4VCI_CREDENTIAL_REQUEST',
  'OID4VCI_PRE_ISSUE',
  'OID4VCI_DEFERRED',
  'OID4VCI_POST_ISSUANCE',
  'OID4VCI_NOTIFICATION_RECEIPT',
] as const;

export type Phase = (typeof PHASES)[number];

export const isPhase = (value: string): value is Phase => (PHASES as readonly string[]).includes(value);

/** The phase an asynchronous callback contribution is pinned to (001 §4.2). */
export const DEFERRED_PHASE: Phase = 'OID4VCI_DEFERRED';

export const phaseIndex = (phase: Phase) => PHASES.indexOf(phase);
