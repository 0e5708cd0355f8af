import { randomUUID } from 'node:crypto';
import type { CommandContext, JoinedUnit, Platform, Principal } from '@tessera/platform';
import { advanceSession } from '../commands/advance-session.js';
import { buildSessionClaims, type ClaimsForOutput } from '../commands/build-claims.js';
import { getSession } from '../commands/get-session.js';
import { initSession, type InitSessionInput } from '../commands/init-session.js';
import { markDeferred } from '../commands/mark-deferred.js';
import { markIssued } from '../commands/mark-issued.js';
import { recordNotification, type NotificationEvent } from '../commands/record-notification.js';
import type { SessionSummary } from '../commands/session-view.js';
import type { IssuanceConfig } from '../config.js';
import type { Phase } from '../domain/phases.js';
import type { InvocationBinding } from '../domain/pipeline.js';
import { ConnectorRunner } from '../connectors/connector-runner.js';
import { createIssuanceServices, type IssuanceServices } from '../services.js';

/** The state of a session as the port answers it: the pipeline endpoints' view (status, phase, completed_phases…). */
export type SessionView = SessionSummary;

/**
 * The session port (contract D between the pipeline and the wallet-facing issuer): what the OpenID4VCI issuer
 * drives in-process. Every state change runs a command of this package through its command bus (policy, audit,
 * metrics) and the session state machine; an expired or unknown session is `null` from `get` and a not-found
 * AppError from the others. The writes take the caller's open unit of work (`unit`) when it gives one, so that
 * they commit with the caller's own change (issue 13 §7).
 */
export interface IssuanceSessions {
  /** The init-session command (same validation, audit and policy as POST /sessions), for offers. */
  startSession(
    tenantId: string,
    principal: Principal,
    input: InitSessionInput,
    unit?: JoinedUnit,
  ): Promise<SessionView>;
  /**
   * Enters `phase` and every earlier phase not yet completed: invokes the connectors bound to them (synchronous
   * ones awaited up to `syncWaitWindow`), applies their contributions, and returns the progress.
   */
  advance(tenantId: string, correlationId: string, phase: Phase): Promise<SessionView>;
  /**
   * The claims of one credential configuration, built from the bag by its claims bindings (claimPath dot
   * notation → nested object), or what is still missing and whether the binding is deferrable.
   */
  claimsFor(tenantId: string, correlationId: string, credentialConfigurationId: string): Promise<ClaimsForOutput>;
  markDeferred(tenantId: string, correlationId: string, unit?: JoinedUnit): Promise<void>;
  markIssued(
    tenantId: string,
    correlationId: string,
    credentialConfigurationId: string,
    unit?: JoinedUnit,
  ): Promise<void>;
  /**
   * Records the wallet's notification, then advances to OID4VCI_NOTIFICATION_RECEIPT (its connectors); in a
   * caller's unit, the advance runs once that unit has committed.
   */
  recordNotification(
    tenantId: string,
    correlationId: string,
    event: NotificationEvent,
    unit?: JoinedUnit,
  ): Promise<void>;
  get(tenantId: string, correlationId: string): Promise<SessionView | null>;
}

/**
 * Runs the connector invocations an `advance` found awaited (connectors/connector-runner.ts); answers once the
 * synchronous ones have answered or the wait window has passed.
 */
export interface AwaitedInvocations {
  invoke(tenantId: string, session: SessionView, awaiting: InvocationBinding[]): Promise<void>;
  /** Resolves when every invocation started so far has been applied. */
  settled(): Promise<void>;
}

/** The port as built here: the contract, and a wait for connector work still running (tests, shutdown). */
export type IssuanceSessionsPort = IssuanceSessions & { settled(): Promise<void> };

/** The caller of the port is the issuer in this process, which has authenticated the wallet itself. */
const portPrincipal = (tenantId: string): Principal => ({
  id: 'oid4vci-issuer',
  kind: 'service',
  tenantId,
  roles: [],
  scopes: [],
  clientId: null,
  issuer: null,
});

export function createIssuanceSessions(platform: Platform, config: IssuanceConfig): IssuanceSessionsPort {
  return issuanceSessionsOn(createIssuanceServices(platform, config));
}

/** The port on given services (the role shares its services and connector runner with the HTTP routes). */
export function issuanceSessionsOn(
  s: IssuanceServices,
  invocations: AwaitedInvocations = new ConnectorRunner(s),
): IssuanceSessionsPort {
  const commands = {
    init: initSession(s),
    advance: advanceSession(s),
    claims: buildSessionClaims(s),
    deferred: markDeferred(s),
    issued: markIssued(s),
    notification: recordNotification(s),
    get: getSession(s),
  };
  // The audit's correlation id is the session's: every event of one issuance reads together.
  const context = (
    tenantId: string,
    correlationId: string,
    principal = portPrincipal(tenantId),
    unit?: JoinedUnit,
  ): CommandContext => ({
    tenantId,
    principal,
    correlationId,
    trace: null,
    log: s.platform.logger,
    unit,
  });
  const advance = async (tenantId: string, correlationId: string, phase: Phase): Promise<SessionView> => {
    const started = performance.now();
    s.metrics.advances.inc({ phase });
    try {
      const first = await s.bus.execute(commands.advance, context(tenantId, correlationId), { correlationId, phase });
      if (first.awaiting.length === 0) return first.session;
      await invocations.invoke(tenantId, first.session, first.awaiting);
      return (await get(tenantId, correlationId)) ?? first.session;
    } finally {
      s.metrics.phaseDuration.observe({ phase }, (performance.now() - started) / 1000);
    }
  };
  const get = (tenantId: string, correlationId: string) =>
    s.bus.execute(commands.get, context(tenantId, correlationId), { correlationId });
  return {
    startSession: (tenantId, principal, input, unit) =>
      s.bus.execute(commands.init, context(tenantId, input.correlation_id ?? randomUUID(), principal, unit), input),
    advance,
    claimsFor: (tenantId, correlationId, credentialConfigurationId) =>
      s.bus.execute(commands.claims, context(tenantId, correlationId), { correlationId, credentialConfigurationId }),
    async markDeferred(tenantId, correlationId, unit) {
      await s.bus.execute(commands.deferred, context(tenantId, correlationId, undefined, unit), { correlationId });
    },
    async markIssued(tenantId, correlationId, credentialConfigurationId, unit) {
      await s.bus.execute(commands.issued, context(tenantId, correlationId, undefined, unit), {
        correlationId,
        credentialConfigurationId,
      });
    },
    async recordNotification(tenantId, correlationId, event, unit) {
      await s.bus.execute(commands.notification, context(tenantId, correlationId, undefined, unit), {
        correlationId,
        event,
      });
      // The receipt's connectors call out: never inside a transaction.
      const receipt = async () => void (await advance(tenantId, correlationId, 'OID4VCI_NOTIFICATION_RECEIPT'));
      if (unit) unit.afterCommit(receipt);
      else await receipt();
    },
    get,
    settled: () => invocations.settled(),
  };
}
