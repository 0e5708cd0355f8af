import { describe, expect, it } from 'vitest';
import {
  isTerminalReconciliation,
  nextReconciliationStatus,
  OPEN_RECONCILIATION_STATUSES,
  RECONCILIATION_STATUSES,
  type ReconciliationEvent,
} from './reconciliation-state.js';

/** 000 §3.2, row by row. */
describe('IDV reconciliation state machine', () => {
  it('moves CREATED → REDIRECTED → CALLBACK_RECEIVED → COMPLETED, each from its one state only', () => {
    const path: [ReconciliationEvent, string, string][] = [
      ['browser_sent', 'CREATED', 'REDIRECTED'],
      ['callback_arrived', 'REDIRECTED', 'CALLBACK_RECEIVED'],
      ['processing_succeeded', 'CALLBACK_RECEIVED', 'COMPLETED'],
    ];
    for (const [event, from, to] of path) {
      for (const status of RECONCILIATION_STATUSES)
        expect(nextReconciliationStatus(status, event), `${event} from ${status}`).toBe(status === from ? to : null);
    }
  });

  it('any non-terminal state fails to ERROR; COMPLETED and ERROR are terminal', () => {
    expect(OPEN_RECONCILIATION_STATUSES).toEqual(['CREATED', 'REDIRECTED', 'CALLBACK_RECEIVED']);
    for (const status of RECONCILIATION_STATUSES) {
      const terminal = status === 'COMPLETED' || status === 'ERROR';
      expect(isTerminalReconciliation(status)).toBe(terminal);
      expect(nextReconciliationStatus(status, 'failed')).toBe(terminal ? null : 'ERROR');
    }
  });
});
