import { describe, expect, it } from 'vitest';
import type { PipelineConfiguration } from './pipeline.js';
import {
  initialSession,
  transition,
  type SessionEvent,
  type SessionState,
  type SessionStatus,
} from './session-machine.js';

const pipeline = (manualApproval: boolean): PipelineConfiguration => ({
  pipelineId: 'p',
  invocationBindings: [
    { connectorId: 'kyc', phase: 'OID4VCI_START', inputConnectorFields: [], required: true, mode: 'SYNCHRONOUS' },
    { connectorId: 'extra', phase: 'OID4VCI_START', inputConnectorFields: [], required: false, mode: 'DEFERRABLE' },
  ],
  claimsBindings: [],
  expectedInitialConnectorFields: [],
  manualApproval,
});

const at = (status: SessionStatus): SessionState => ({ ...initialSession(), status });
const ok = (p: PipelineConfiguration, s: SessionState, e: SessionEvent) => {
  const r = transition(p, s, e);
  if (!r.ok) throw new Error(r.reason);
  return r.state;
};
const refused = (p: PipelineConfiguration, s: SessionState, e: SessionEvent) => {
  const r = transition(p, s, e);
  expect(r.ok).toBe(false);
};

const contributed = (complete: boolean, contributorId = 'kyc'): SessionEvent => ({
  type: 'CONTRIBUTED',
  contributorId,
  phase: 'OID4VCI_START',
  complete,
});

describe('session lifecycle (001 §2.2, §3)', () => {
  const auto = pipeline(false);
  const manual = pipeline(true);

  it('starts in progress at OID4VCI_START with nothing completed', () => {
    expect(initialSession()).toEqual({
      status: 'IN_PROGRESS',
      phase: 'OID4VCI_START',
      completedPhases: [],
      contributors: {},
      failure: null,
    });
  });

  it('an incomplete contribution keeps the session in progress and records the contributor', () => {
    const s = ok(auto, initialSession(), contributed(false));
    expect(s.status).toBe('IN_PROGRESS');
    expect(s.contributors).toEqual({ kyc: 'CONTRIBUTED' });
    expect(s.completedPhases).toEqual([]);
  });

  it('a phase completes once each contributor bound to it has contributed or been released', () => {
    const s1 = ok(auto, initialSession(), contributed(false));
    const s2 = ok(auto, s1, { type: 'CONTRIBUTOR_FAILED', contributorId: 'extra', required: false, complete: false });
    expect(s2.completedPhases).toEqual(['OID4VCI_START']);
  });

  it('completeness moves a gathering session to READY, or to AWAITING_REVIEW under manual approval', () => {
    expect(ok(auto, initialSession(), contributed(true)).status).toBe('READY');
    expect(ok(manual, initialSession(), contributed(true)).status).toBe('AWAITING_REVIEW');
    expect(ok(auto, at('DEFERRED'), contributed(true)).status).toBe('READY');
    expect(ok(manual, at('DEFERRED'), contributed(true)).status).toBe('AWAITING_REVIEW');
    expect(ok(auto, at('DEFERRED'), contributed(false)).status).toBe('DEFERRED');
  });

  it('READY and ISSUED sessions still take contributions (later phases) without changing status', () => {
    expect(ok(auto, at('READY'), contributed(true)).status).toBe('READY');
    expect(ok(auto, at('ISSUED'), contributed(true)).status).toBe('ISSUED');
  });

  it('refuses contributions under review, after failure and after expiry', () => {
    for (const status of ['AWAITING_REVIEW', 'FAILED', 'EXPIRED'] as const)
      refused(auto, at(status), contributed(true));
  });

  it('a required contributor failure fails the session; an optional one releases the wait', () => {
    const failed = ok(auto, initialSession(), {
      type: 'CONTRIBUTOR_FAILED',
      contributorId: 'kyc',
      required: true,
      complete: false,
    });
    expect(failed.status).toBe('FAILED');
    expect(failed.failure).toEqual({ kind: 'CONTRIBUTOR_FAILED', contributorId: 'kyc' });
    const going = ok(auto, initialSession(), {
      type: 'CONTRIBUTOR_FAILED',
      contributorId: 'extra',
      required: false,
      complete: false,
    });
    expect(going.status).toBe('IN_PROGRESS');
    expect(going.contributors).toEqual({ extra: 'RELEASED' });
  });

  it('an optional failure that leaves the session complete moves it on', () => {
    const e: SessionEvent = { type: 'CONTRIBUTOR_FAILED', contributorId: 'extra', required: false, complete: true };
    expect(ok(auto, initialSession(), e).status).toBe('READY');
    expect(ok(manual, initialSession(), e).status).toBe('AWAITING_REVIEW');
  });

  it('a failure is recorded once per contributor, and never on a failed, expired or issued session', () => {
    const e: SessionEvent = { type: 'CONTRIBUTOR_FAILED', contributorId: 'extra', required: false, complete: false };
    refused(auto, ok(auto, initialSession(), e), e);
    for (const status of ['FAILED', 'EXPIRED', 'ISSUED'] as const) refused(auto, at(status), e);
    expect(ok(auto, at('AWAITING_REVIEW'), { ...e, required: true }).status).toBe('FAILED');
    expect(ok(auto, at('READY'), { ...e, required: true }).status).toBe('FAILED');
  });

  it('a decision is taken only while awaiting review: APPROVED → READY, REJECTED → FAILED', () => {
    expect(ok(manual, at('AWAITING_REVIEW'), { type: 'DECIDED', decision: 'APPROVED' }).status).toBe('READY');
    const rejected = ok(manual, at('AWAITING_REVIEW'), { type: 'DECIDED', decision: 'REJECTED' });
    expect(rejected.status).toBe('FAILED');
    expect(rejected.failure).toEqual({ kind: 'REJECTED' });
    for (const status of ['IN_PROGRESS', 'READY', 'DEFERRED', 'ISSUED', 'FAILED', 'EXPIRED'] as const)
      refused(manual, at(status), { type: 'DECIDED', decision: 'APPROVED' });
  });

  it('phases move forward only and mark the ones passed as completed', () => {
    const s = ok(auto, initialSession(), { type: 'ENTER_PHASE', phase: 'OID4VCI_TOKEN' });
    expect(s.phase).toBe('OID4VCI_TOKEN');
    expect(s.completedPhases).toEqual(['OID4VCI_START', 'OID4VCI_AUTHORIZATION', 'OID4VCI_PRE_AUTHORIZED']);
    refused(auto, s, { type: 'ENTER_PHASE', phase: 'OID4VCI_TOKEN' });
    refused(auto, s, { type: 'ENTER_PHASE', phase: 'OID4VCI_START' });
    for (const status of ['AWAITING_REVIEW', 'FAILED', 'EXPIRED'] as const)
      refused(auto, at(status), { type: 'ENTER_PHASE', phase: 'OID4VCI_DEFERRED' });
  });

  it('only a session in progress is deferred', () => {
    expect(ok(auto, initialSession(), { type: 'DEFERRED' }).status).toBe('DEFERRED');
    for (const status of ['AWAITING_REVIEW', 'READY', 'DEFERRED', 'ISSUED', 'FAILED', 'EXPIRED'] as const)
      refused(auto, at(status), { type: 'DEFERRED' });
  });

  it('only a ready session is issued', () => {
    expect(ok(auto, at('READY'), { type: 'ISSUED' }).status).toBe('ISSUED');
    for (const status of ['IN_PROGRESS', 'AWAITING_REVIEW', 'DEFERRED', 'ISSUED', 'FAILED', 'EXPIRED'] as const)
      refused(auto, at(status), { type: 'ISSUED' });
  });

  it('a live session expires; a failed, expired or issued one does not', () => {
    for (const status of ['IN_PROGRESS', 'AWAITING_REVIEW', 'READY', 'DEFERRED'] as const)
      expect(ok(auto, at(status), { type: 'EXPIRED' }).status).toBe('EXPIRED');
    for (const status of ['ISSUED', 'FAILED', 'EXPIRED'] as const) refused(auto, at(status), { type: 'EXPIRED' });
  });
});
