/**
 * The IDV reconciliation state machine (000 §3.2). Pure: the table of moves and the terminal states. Every move is
 * recorded with its time on the reconciliation (history).
 */
export const RECONCILIATION_STATUSES = ['CREATED', 'REDIRECTED', 'CALLBACK_RECEIVED', 'COMPLETED', 'ERROR'] as const;
export type ReconciliationStatus = (typeof RECONCILIATION_STATUSES)[number];

export type ReconciliationEvent = 'browser_sent' | 'callback_arrived' | 'processing_succeeded' | 'failed';

/**
 * The rows of 000 §3.2 as written. "Browser sent to the identity provider" is the moment initiate hands out the
 * authorizationUrl (the portal sends the browser there); "any non-terminal → ERROR" covers every failure cause,
 * the abort of submit (confirmed false) and the replacement of an attempt by a newer one (README).
 */
const TRANSITIONS: Record<ReconciliationEvent, { from: readonly ReconciliationStatus[]; to: ReconciliationStatus }> = {
  browser_sent: { from: ['CREATED'], to: 'REDIRECTED' },
  callback_arrived: { from: ['REDIRECTED'], to: 'CALLBACK_RECEIVED' },
  processing_succeeded: { from: ['CALLBACK_RECEIVED'], to: 'COMPLETED' },
  failed: { from: ['CREATED', 'REDIRECTED', 'CALLBACK_RECEIVED'], to: 'ERROR' },
};

export const reconciliationMove = (event: ReconciliationEvent) => TRANSITIONS[event];

export function nextReconciliationStatus(
  current: ReconciliationStatus,
  event: ReconciliationEvent,
): ReconciliationStatus | null {
  const t = TRANSITIONS[event];
  return t.from.includes(current) ? t.to : null;
}

/** The states an attempt can still leave: at most one per presentation session at a time. */
export const OPEN_RECONCILIATION_STATUSES: readonly ReconciliationStatus[] = TRANSITIONS.failed.from;

export const isTerminalReconciliation = (status: ReconciliationStatus) => status === 'COMPLETED' || status === 'ERROR';

export interface ReconciliationChange {
  status: ReconciliationStatus;
  at: string;
}
