import { describe, expect, it } from 'vitest';
import {
  afterRejectedResponse,
  EXPIRABLE,
  hasTimedOut,
  isTerminalForPolling,
  nextStatus,
  normalizeStatus,
  SESSION_STATUSES,
  type SessionEvent,
  type SessionStatus,
} from './session-state.js';

/** 000 §3.1: the presentation session state machine, as a table. */
describe('session state machine', () => {
  const moves: [SessionStatus, SessionEvent, SessionStatus][] = [
    ['CREATED', 'request_fetched', 'INTERACTION_STARTED'],
    ['INTERACTION_STARTED', 'presentation_received', 'VERIFYING'],
    ['VERIFYING', 'presentation_valid', 'VERIFIED'],
    ['VERIFYING', 'presentation_invalid', 'ERROR'],
    ['CREATED', 'timeout', 'EXPIRED'],
    ['INTERACTION_STARTED', 'timeout', 'EXPIRED'],
    ['VERIFYING', 'timeout', 'EXPIRED'],
    ['VERIFIED', 'complete_known_holder', 'COMPLETED'],
    ['VERIFIED', 'complete_unknown_holder', 'IDV_REQUIRED'],
    ['VERIFIED', 'idv_completed', 'COMPLETED'],
    ['IDV_REQUIRED', 'idv_completed', 'COMPLETED'],
    ['VERIFIED', 'complete_unconfirmed_match', 'MATCH_CONFIRMATION_REQUIRED'],
    ['MATCH_CONFIRMATION_REQUIRED', 'match_confirmed', 'COMPLETED'],
    ['MATCH_CONFIRMATION_REQUIRED', 'match_declined', 'IDV_REQUIRED'],
  ];

  it.each(moves)('%s --%s--> %s', (from, event, to) => {
    expect(nextStatus(from, event)).toBe(to);
  });

  it('refuses every other move', () => {
    const allowed = new Set(moves.map(([from, event]) => `${from}/${event}`));
    const events: SessionEvent[] = [
      'request_fetched',
      'presentation_received',
      'presentation_valid',
      'presentation_invalid',
      'timeout',
      'complete_known_holder',
      'complete_unknown_holder',
      'complete_unconfirmed_match',
      'match_confirmed',
      'match_declined',
      'idv_completed',
    ];
    let refused = 0;
    for (const status of SESSION_STATUSES) {
      for (const event of events) {
        if (allowed.has(`${status}/${event}`)) continue;
        expect(nextStatus(status, event), `${status}/${event}`).toBeNull();
        refused++;
      }
    }
    expect(refused).toBe(SESSION_STATUSES.length * events.length - moves.length);
  });

  it('terminal states leave only by complete or IDV; EXPIRED, ERROR and COMPLETED never leave', () => {
    for (const status of ['EXPIRED', 'ERROR', 'COMPLETED'] as const) {
      for (const event of [
        'request_fetched',
        'presentation_received',
        'timeout',
        'complete_known_holder',
        'idv_completed',
      ] as const)
        expect(nextStatus(status, event)).toBeNull();
    }
    expect(
      ['VERIFIED', 'IDV_REQUIRED', 'COMPLETED', 'EXPIRED', 'ERROR'].every((s) =>
        isTerminalForPolling(s as SessionStatus),
      ),
    ).toBe(true);
    expect(['CREATED', 'INTERACTION_STARTED', 'VERIFYING'].some((s) => isTerminalForPolling(s as SessionStatus))).toBe(
      false,
    );
  });

  it('PENDING is an alias of CREATED', () => {
    expect(normalizeStatus('PENDING')).toBe('CREATED');
    expect(normalizeStatus('VERIFIED')).toBe('VERIFIED');
  });

  it('times out only the pre-verification states, at expiresAt', () => {
    const expiresAt = new Date('2030-01-01T00:05:00Z');
    const before = new Date('2030-01-01T00:04:59.999Z');
    expect(EXPIRABLE).toEqual(['CREATED', 'INTERACTION_STARTED', 'VERIFYING']);
    for (const s of EXPIRABLE) {
      expect(hasTimedOut(s, expiresAt, before)).toBe(false);
      expect(hasTimedOut(s, expiresAt, expiresAt)).toBe(true);
    }
    for (const s of ['VERIFIED', 'IDV_REQUIRED', 'COMPLETED', 'ERROR', 'EXPIRED'] as const)
      expect(hasTimedOut(s, expiresAt, new Date('2031-01-01T00:00:00Z'))).toBe(false);
  });

  it('a refused response reopens the session until the bound, then ends it in ERROR', () => {
    expect(nextStatus('VERIFYING', 'presentation_rejected')).toBe('INTERACTION_STARTED');
    expect(afterRejectedResponse(0, 3)).toBe('INTERACTION_STARTED');
    expect(afterRejectedResponse(1, 3)).toBe('INTERACTION_STARTED');
    expect(afterRejectedResponse(2, 3)).toBe('ERROR');
    expect(afterRejectedResponse(0, 1)).toBe('ERROR');
  });
});
