import type { CommandContext } from '@tessera/platform';
import { claimInvocations } from '../commands/claim-invocations.js';
import { recordInvocationOutcome } from '../commands/record-invocation-outcome.js';
import type { SessionSummary } from '../commands/session-view.js';
import { issueCallbackToken } from '../crypto/callback-token.js';
import type { InvocationBinding } from '../domain/pipeline.js';
import { PIPELINE_BASE_PATH } from '../http/base.js';
import type { IssuanceServices } from '../services.js';
import { callConnector } from './call-connector.js';
import { ConnectorRegistry } from './connector-registry.js';

/** One claimed invocation, ready to send. */
interface Prepared {
  invocationId: string;
  binding: InvocationBinding;
  body: string;
}

/**
 * Invokes the connectors an `advance` found awaited (001 §4.2, §6). Each binding is claimed once per session in
 * the database (a second replica advancing the same session at once sends nothing twice), its request carries the
 * session's correlation id, the phase, the binding's input connector fields (opened from the bag; only those) and
 * a callback URL with a fresh capability token. Synchronous bindings are awaited up to `syncWaitWindowMs`, the
 * rest run on. The claims and every outcome are audited commands (commands/claim-invocations.ts,
 * commands/record-invocation-outcome.ts), each committed with its event.
 */
export class ConnectorRunner {
  private readonly inflight = new Set<Promise<void>>();
  private readonly registry: ConnectorRegistry;
  private readonly claim: ReturnType<typeof claimInvocations>;
  private readonly outcome: ReturnType<typeof recordInvocationOutcome>;

  constructor(private readonly s: IssuanceServices) {
    this.registry = new ConnectorRegistry(s.config.connectors);
    this.claim = claimInvocations(s);
    this.outcome = recordInvocationOutcome(s);
  }

  async invoke(tenantId: string, session: SessionSummary, awaiting: readonly InvocationBinding[]): Promise<void> {
    const prepared = await this.prepare(tenantId, session.correlation_id, awaiting);
    const tasks = prepared.map((p) => ({ mode: p.binding.mode, done: this.track(this.run(tenantId, session, p)) }));
    const synchronous = tasks.filter((t) => t.mode === 'SYNCHRONOUS').map((t) => t.done);
    if (synchronous.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const window = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.s.config.connectorCalls.syncWaitWindowMs);
    });
    await Promise.race([Promise.all(synchronous), window]);
    clearTimeout(timer);
  }

  /** Resolves when every invocation started so far has been applied (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track(task: Promise<void>): Promise<void> {
    const tracked = task.finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
    return tracked;
  }

  private async prepare(
    tenantId: string,
    correlationId: string,
    awaiting: readonly InvocationBinding[],
  ): Promise<Prepared[]> {
    const { s } = this;
    const now = s.clock.now();
    const claimed = await s.bus.execute(
      this.claim,
      this.context(tenantId, correlationId, 'issuance:connector-runner'),
      {
        correlationId,
        awaiting,
      },
    );
    const prepared: Prepared[] = [];
    for (const { invocationId, binding, fields } of claimed) {
      const { token, claims } = await issueCallbackToken(
        s.platform.keys,
        { tenantId, correlationId, contributorId: binding.connectorId },
        now,
        s.config.callbackTokenTtlSeconds,
      );
      const base = s.config.connectorCalls.callbackBaseUrl.replace(/\/+$/, '');
      const body = JSON.stringify({
        type: 'issuance.connector.invocation',
        timestamp: now.toISOString(),
        data: {
          invocation_id: invocationId,
          correlation_id: correlationId,
          connector_id: binding.connectorId,
          phase: binding.phase,
          mode: binding.mode,
          connector_fields: fields,
          callback_url: `${base}${PIPELINE_BASE_PATH}/sessions/${encodeURIComponent(correlationId)}/callbacks/${token}`,
          callback_expires_at: new Date(claims.exp * 1000).toISOString(),
        },
      });
      prepared.push({ invocationId, binding, body });
    }
    return prepared;
  }

  /** The pipeline's own context: the audit's correlation id is the session's, the principal the runner or a connector. */
  private context(tenantId: string, correlationId: string, principalId: string): CommandContext {
    return {
      tenantId,
      principal: {
        id: principalId,
        kind: 'service',
        tenantId,
        roles: [],
        scopes: [],
        clientId: null,
        issuer: null,
      },
      correlationId,
      trace: null,
      log: this.s.platform.logger,
    };
  }

  private async run(tenantId: string, session: SessionSummary, p: Prepared): Promise<void> {
    const { s } = this;
    const correlationId = session.correlation_id;
    try {
      const outcome = await callConnector(s, this.registry.find(tenantId, p.binding.connectorId), {
        invocationId: p.invocationId,
        tenantId,
        binding: p.binding,
        body: p.body,
      });
      await s.bus.execute(this.outcome, this.context(tenantId, correlationId, `connector:${p.binding.connectorId}`), {
        correlationId,
        invocationId: p.invocationId,
        binding: p.binding,
        outcome,
      });
    } catch (error) {
      s.platform.logger.error(
        { err: error, connector_id: p.binding.connectorId, invocation_id: p.invocationId },
        'connector invocation not applied',
      );
    }
  }
}
