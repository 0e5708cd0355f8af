import { PHASES, phaseIndex, type Phase } from './phases.js';
import type { PipelineConfiguration } from './pipeline.js';

/**
 * The lifecycle of an issuance session (001 §2.2, §3) as a pure state machine. 001 §3 names "awaiting review",
 * "failed", "deferred" and "issued" and leaves the complete set open; the set chosen here:
 * - IN_PROGRESS: attributes are being gathered.
 * - AWAITING_REVIEW: complete, the pipeline asks for manual approval; only a decision moves it.
 * - READY: complete (and approved where review is asked): issuance continues.
 * - DEFERRED: the credential request was answered 202 while asynchronous connector work goes on.
 * - ISSUED, FAILED, EXPIRED: final for decisions; ISSUED still takes post-issuance contributions.
 */
export const SESSION_STATUSES = [
  'IN_PROGRESS',
  'AWAITING_REVIEW',
  'READY',
  'DEFERRED',
  'ISSUED',
  'FAILED',
  'EXPIRED',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** What a bound contributor has done: contributed, failed (required), or been released (failed, optional). */
export type ContributorState = 'CONTRIBUTED' | 'FAILED' | 'RELEASED';

export interface SessionState {
  status: SessionStatus;
  phase: Phase;
  completedPhases: Phase[];
  contributors: Record<string, ContributorState>;
  /** Why a FAILED session failed: a required contributor's failure, or a reviewer's rejection. */
  failure: { kind: 'CONTRIBUTOR_FAILED'; contributorId: string } | { kind: 'REJECTED' } | null;
}

export type SessionEvent =
  /** `complete`: every credential binding has its required claims, the contribution included. */
  | { type: 'CONTRIBUTED'; contributorId: string; phase: Phase; complete: boolean }
  | { type: 'CONTRIBUTOR_FAILED'; contributorId: string; required: boolean; complete: boolean }
  | { type: 'ENTER_PHASE'; phase: Phase }
  | { type: 'DECIDED'; decision: 'APPROVED' | 'REJECTED' }
  | { type: 'DEFERRED' }
  | { type: 'ISSUED' }
  | { type: 'EXPIRED' };

export type Transition = { ok: true; state: SessionState } | { ok: false; reason: string };

const TERMINAL: readonly SessionStatus[] = ['FAILED', 'EXPIRED'];
const GATHERING: readonly SessionStatus[] = ['IN_PROGRESS', 'DEFERRED'];

export function initialSession(phase: Phase = 'OID4VCI_START'): SessionState {
  return { status: 'IN_PROGRESS', phase, completedPhases: [], contributors: {}, failure: null };
}

export const isTerminal = (status: SessionStatus) => TERMINAL.includes(status);

const refuse = (reason: string): Transition => ({ ok: false, reason });

/** A gathering session that has become complete moves on: to review when the pipeline asks for it, else ready. */
const afterGathering = (pipeline: PipelineConfiguration, state: SessionState, complete: boolean): SessionStatus =>
  GATHERING.includes(state.status) && complete ? (pipeline.manualApproval ? 'AWAITING_REVIEW' : 'READY') : state.status;

/**
 * The phases completed so far: every phase before the current one, and any phase whose bound contributors have all
 * contributed, failed or been released.
 */
function completedPhases(pipeline: PipelineConfiguration, state: SessionState): Phase[] {
  const current = phaseIndex(state.phase);
  return PHASES.filter((phase, i) => {
    if (i < current) return true;
    const bound = pipeline.invocationBindings.filter((b) => b.phase === phase);
    return bound.length > 0 && bound.every((b) => state.contributors[b.connectorId] !== undefined);
  });
}

const settle = (pipeline: PipelineConfiguration, state: SessionState): Transition => ({
  ok: true,
  state: { ...state, completedPhases: completedPhases(pipeline, state) },
});

export function transition(pipeline: PipelineConfiguration, state: SessionState, event: SessionEvent): Transition {
  switch (event.type) {
    case 'CONTRIBUTED': {
      // A reviewer decides on the data as it stands: nothing changes under review (001 §3).
      if (TERMINAL.includes(state.status) || state.status === 'AWAITING_REVIEW')
        return refuse(`A session ${state.status.toLowerCase()} takes no contribution.`);
      const contributors = { ...state.contributors, [event.contributorId]: 'CONTRIBUTED' as const };
      const status = afterGathering(pipeline, state, event.complete);
      return settle(pipeline, { ...state, status, contributors });
    }
    case 'CONTRIBUTOR_FAILED': {
      if (TERMINAL.includes(state.status) || state.status === 'ISSUED')
        return refuse(`A session ${state.status.toLowerCase()} records no contributor failure.`);
      const previous = state.contributors[event.contributorId];
      if (previous === 'FAILED' || previous === 'RELEASED')
        return refuse('This contributor has already been recorded as failed.');
      // 001 §3: a required contributor's failure fails the session; an optional one's stops the wait only.
      if (event.required) {
        return settle(pipeline, {
          ...state,
          status: 'FAILED',
          contributors: { ...state.contributors, [event.contributorId]: 'FAILED' },
          failure: { kind: 'CONTRIBUTOR_FAILED', contributorId: event.contributorId },
        });
      }
      const contributors = { ...state.contributors, [event.contributorId]: 'RELEASED' as const };
      return settle(pipeline, { ...state, status: afterGathering(pipeline, state, event.complete), contributors });
    }
    case 'ENTER_PHASE': {
      if (TERMINAL.includes(state.status) || state.status === 'AWAITING_REVIEW')
        return refuse(`A session ${state.status.toLowerCase()} does not move to another phase.`);
      if (phaseIndex(event.phase) <= phaseIndex(state.phase)) return refuse('Phases only move forward.');
      return settle(pipeline, { ...state, phase: event.phase });
    }
    case 'DECIDED': {
      if (state.status !== 'AWAITING_REVIEW') return refuse('Only a session awaiting review takes a decision.');
      return event.decision === 'APPROVED'
        ? settle(pipeline, { ...state, status: 'READY' })
        : settle(pipeline, { ...state, status: 'FAILED', failure: { kind: 'REJECTED' } });
    }
    case 'DEFERRED': {
      if (state.status !== 'IN_PROGRESS') return refuse('Only a session still gathering attributes is deferred.');
      return settle(pipeline, { ...state, status: 'DEFERRED' });
    }
    case 'ISSUED': {
      if (state.status !== 'READY') return refuse('Only a ready session is issued.');
      return settle(pipeline, { ...state, status: 'ISSUED' });
    }
    case 'EXPIRED': {
      if (TERMINAL.includes(state.status) || state.status === 'ISSUED')
        return refuse(`A session ${state.status.toLowerCase()} does not expire.`);
      return settle(pipeline, { ...state, status: 'EXPIRED' });
    }
  }
}
