import { postWebhook, retryDelayMs, signWebhook, type FailureKind as TransportFailure } from '@tessera/platform';
import { Value } from 'typebox/value';
import type { ContributionGroup } from '../domain/contribution.js';
import type { InvocationBinding } from '../domain/pipeline.js';
import { ContributionBody } from '../http/schemas.js';
import type { IssuanceServices } from '../services.js';
import { circuitStore } from '../storage/circuit-store.js';
import type { InvocationDelivery } from '../storage/invocation-store.js';
import type { ConnectorRegistration } from './connector-registry.js';

/** The transport's kinds, and ours: not registered, held by the open circuit, an answer that is not a contribution. */
export type FailureKind = TransportFailure | 'unregistered' | 'circuit_open' | 'invalid_answer';

export type CallOutcome =
  /** Answered synchronously with groups (200/201; 204 or an empty body: nothing to add). */
  | { kind: 'answered'; groups: ContributionGroup[]; delivery: InvocationDelivery }
  /** 202: the connector answers later through the callback URL. */
  | { kind: 'accepted'; delivery: InvocationDelivery }
  | { kind: 'failed'; failure: FailureKind; delivery: InvocationDelivery };

export interface InvocationRequest {
  invocationId: string;
  tenantId: string;
  binding: InvocationBinding;
  /** The signed JSON body (connectors/connector-runner.ts). */
  body: string;
}

const RETRYABLE_STATUS = (status: number | null) => status === 408 || status === 429 || (status ?? 0) >= 500;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * One connector invocation (001 §4.2, §6): the body signed with Standard Webhooks under the connector's secret
 * (webhook-id = the invocation id, the same on every attempt so that the connector drops a repeat), sent through
 * the platform's SSRF-guarded POST with the connector's timeout, behind its circuit (the platform's breaker on
 * `issuance_connector_circuits`, shared by every replica). Network errors, timeouts, 408, 429 and 5xx are retried
 * with full-jitter backoff; each failed attempt counts against the circuit; an open circuit stops the retries.
 */
export async function callConnector(
  s: IssuanceServices,
  registration: ConnectorRegistration | undefined,
  request: InvocationRequest,
): Promise<CallOutcome> {
  const delivery: InvocationDelivery = { attempts: 0, lastStatusCode: null, lastErrorKind: null, lastLatencyMs: null };
  const failed = (failure: FailureKind): CallOutcome => {
    delivery.lastErrorKind = failure;
    return { kind: 'failed', failure, delivery };
  };
  if (!registration) return failed('unregistered');
  const calls = s.config.connectorCalls;
  const { tenantId, binding } = request;
  for (let attempt = 1; attempt <= calls.attempts; attempt++) {
    const admission = await s.platform.db.withTenant(tenantId, (sql) =>
      circuitStore.admit(
        sql,
        tenantId,
        binding.connectorId,
        s.clock.now(),
        calls.breakerCooldownMs,
        registration.timeoutMs * 2,
      ),
    );
    if (!admission.admitted) return failed('circuit_open');
    delivery.attempts = attempt;
    const started = performance.now();
    const headers = signWebhook(
      registration.secret,
      request.invocationId,
      s.clock.now().getTime() / 1000,
      request.body,
    );
    const outcome = await postWebhook(registration.url, { ...headers }, request.body, {
      timeoutMs: registration.timeoutMs,
      allowPrivateOrigins: calls.allowPrivateOrigins,
      allowHttp: calls.allowHttp,
      readBody: { maxBytes: calls.responseLimitBytes },
      userAgent: 'tessera-issuance-connectors',
    });
    const seconds = (performance.now() - started) / 1000;
    delivery.lastLatencyMs = Math.round(seconds * 1000);
    delivery.lastStatusCode = outcome.status;
    s.metrics.connectorDuration.observe(
      { connector: binding.connectorId, outcome: outcome.ok ? String(outcome.status) : outcome.kind },
      seconds,
    );
    if (outcome.ok) {
      await s.platform.db.withTenant(tenantId, (sql) => circuitStore.success(sql, tenantId, binding.connectorId));
      delivery.lastErrorKind = null;
      if (outcome.status === 202) return { kind: 'accepted', delivery };
      const groups = parseAnswer(outcome.body ?? '', binding);
      return groups ? { kind: 'answered', groups, delivery } : failed('invalid_answer');
    }
    delivery.lastErrorKind = outcome.kind;
    const state = await s.platform.db.withTenant(tenantId, (sql) =>
      circuitStore.failure(sql, tenantId, binding.connectorId, s.clock.now(), calls.breakerFailureThreshold),
    );
    const retryable = outcome.kind === 'timeout' || outcome.kind === 'network' || RETRYABLE_STATUS(outcome.status);
    if (!retryable || state === 'open' || attempt === calls.attempts) return failed(outcome.kind);
    await sleep(retryDelayMs(attempt, calls.retryBaseMs, calls.retryCapMs));
  }
  return failed('network');
}

/**
 * A synchronous answer: `{groups}` as a contribution body (the same schema), every group from this connector in
 * the binding's phase; an empty body answers nothing (the connector has run, with nothing to add). Anything else
 * is refused: a connector cannot contribute in another's name or phase.
 */
export function parseAnswer(text: string, binding: InvocationBinding): ContributionGroup[] | null {
  const own = { contributorId: binding.connectorId, phase: binding.phase };
  if (text.trim() === '') return [own];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Value.Check(ContributionBody, body)) return null;
  const groups = (body as { groups: ContributionGroup[] }).groups;
  if (groups.some((g) => g.contributorId !== binding.connectorId || g.phase !== binding.phase)) return null;
  return groups;
}
