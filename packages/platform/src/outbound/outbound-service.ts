import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppError } from '../errors/index.js';
import { JsonSealer, rowAad } from '../keys/json-sealer.js';
import type { WriteUnit } from '../commands/command.js';
import type { Sql } from '../db/database.js';
import type { Platform } from '../platform.js';
import type { Delivery, DeliveryStatus, Destination, DestinationProtocol } from './domain/delivery.js';
import { DEFAULT_OUTBOUND_OPTIONS, leaseMs, type OutboundOptions } from './domain/options.js';
import { afterFailure } from './domain/retry.js';
import { OutboundMetrics } from './outbound-metrics.js';
import { signWebhook, generateWebhookSecret } from './signature.js';
import { recordFailures, releaseProbeSlot } from './storage/breaker-store.js';
import * as destinations from './storage/destination-store.js';
import {
  claimDue,
  claimProbe,
  housekeep,
  listDeliveries,
  recordOutcomes,
  type ClaimedDelivery,
  type DeliveryOutcome,
} from './storage/outbox-store.js';
import { assertPublicDestination, DestinationRefused, isSyslogTlsUrl } from './transport/destination-url.js';
import { postWebhook } from './transport/post-webhook.js';
import { SyslogTlsSender } from './transport/send-syslog.js';
import { SET_ERROR_BODY_BYTES, setErrorCode } from './domain/set-push.js';
import { DeliveryLoop } from './delivery-loop.js';
import { circuitEffects } from './domain/circuit-effects.js';
import { OutcomeWriter } from './outcome-writer.js';

const TABLE = 'webhook_destinations';

export interface NewDestination {
  url: string;
  eventTypes?: readonly string[];
  enabled?: boolean;
  /** Default `standard-webhooks`. */
  protocol?: DestinationProtocol;
  /** A service that writes this destination's deliveries itself (event-forwarding/); `enqueue` skips it. */
  managedBy?: string;
}

/**
 * Outbound delivery as a platform service (001 §6 webhooks): the destination registry, the status reads and the
 * delivery loop. Every replica runs the loop (`start()`); the rows they claim never overlap (outbox-store.ts), so
 * replicas add throughput. The loop is the service's own, not a scheduler job: the job scheduler runs a job on
 * one replica at a time, at intervals of seconds, which would serialise delivery.
 */
export class OutboundService {
  readonly options: OutboundOptions;
  private readonly sealer: JsonSealer;
  private readonly metrics: OutboundMetrics;
  /** Destination secrets opened by this process, as promises: the deliveries that start together read it once. */
  private readonly secrets = new Map<string, Promise<string>>();
  private readonly syslog: SyslogTlsSender;
  private readonly loop: DeliveryLoop<ClaimedDelivery>;
  /** When the loop last dead-lettered expired rows and took probe slots (performance.now()). */
  private lastHousekeeping = Number.NEGATIVE_INFINITY;
  private readonly outcomes = new OutcomeWriter<DeliveryOutcome>((batch) => this.writeOutcomes(batch));

  constructor(
    private readonly platform: Platform,
    options: Partial<OutboundOptions> = {},
  ) {
    this.options = { ...DEFAULT_OUTBOUND_OPTIONS, ...options };
    this.sealer = new JsonSealer(platform.keys, this.options.sealerAlias);
    this.metrics = new OutboundMetrics(platform.metrics, platform.db);
    this.syslog = new SyslogTlsSender(this.options);
    this.loop = new DeliveryLoop({
      capacity: this.options.batchSize,
      intervalMs: this.options.pollIntervalMs,
      claim: (room) => this.claimForLoop(room),
      deliver: (d) => this.deliverLogged(d),
      onError: (error) => this.platform.logger.warn({ reason: error.message }, 'webhook delivery round failed'),
    });
  }

  /**
   * Registers a destination; answers it with its `whsec_` secret, shown this once. The URL is checked (the SSRF
   * rules resolve its host) before `unit` opens, so the transaction holds no lookup; by default `unit` is a
   * transaction of its own, a command gives its unit of work so that the row commits with its audit event.
   */
  async createDestination(
    tenantId: string,
    input: NewDestination,
    unit: WriteUnit = (fn) => this.platform.db.withTenant(tenantId, fn),
  ): Promise<{ destination: Destination; secret: string }> {
    assertProtocolFits(input);
    await this.assertDestinationUrl(input.url);
    return unit((sql) => this.insertDestination(sql, tenantId, input));
  }

  /**
   * Writes a destination in the caller's transaction `sql` of the tenant; the caller has checked its URL
   * (`assertDestinationUrl`). For a service that writes a destination together with its own rows (event-forwarding/).
   */
  async insertDestination(
    sql: Sql,
    tenantId: string,
    input: NewDestination,
  ): Promise<{ destination: Destination; secret: string }> {
    assertProtocolFits(input);
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const destination = await destinations.insertDestination(sql, {
      id,
      url: input.url,
      sealedSecret: await this.sealer.sealJson(secret, rowAad(TABLE, tenantId, id, 'sealed_secret'), sql),
      enabled: input.enabled ?? true,
      eventTypes: [...new Set(input.eventTypes ?? [])],
      ...(input.protocol ? { protocol: input.protocol } : {}),
      ...(input.managedBy ? { managedBy: input.managedBy } : {}),
    });
    return { destination, secret };
  }

  listDestinations(tenantId: string): Promise<Destination[]> {
    return this.platform.db.withTenantSession(tenantId, (sql) => destinations.listDestinations(sql));
  }

  /** Checks a URL against the destination rules (SSRF) as createDestination does; throws `invalid_request` on `field`. */
  async assertDestinationUrl(url: string, field = 'url'): Promise<void> {
    try {
      await assertPublicDestination(url, this.options);
    } catch (error) {
      if (error instanceof DestinationRefused)
        throw new AppError('invalid_request', `The destination URL is refused: ${error.message}.`, { field });
      throw error;
    }
  }

  /** Wakes this replica's loop at once (new rows were written); a no-op when the loop is not running. */
  poke(): void {
    this.loop.poke();
  }

  /** Removes a destination in `unit` (see createDestination); 404, with nothing written, when there is none. */
  async deleteDestination(
    tenantId: string,
    id: string,
    unit: WriteUnit = (fn) => this.platform.db.withTenant(tenantId, fn),
  ): Promise<void> {
    await unit(async (sql) => {
      if (!(await destinations.deleteDestination(sql, id)))
        throw new AppError('not_found', 'No such webhook destination.');
    });
    this.secrets.delete(`${tenantId}/${id}`);
  }

  listDeliveries(
    tenantId: string,
    filter: {
      destinationId?: string;
      status?: DeliveryStatus;
      limit: number;
      after?: { createdAt: string; id: string };
    },
  ): Promise<Delivery[]> {
    return this.platform.db.withTenantSession(tenantId, (sql) => listDeliveries(sql, filter));
  }

  /**
   * Starts this replica's delivery loop: it claims due rows whenever fewer than `batchSize` deliveries are in
   * flight (delivery-loop.ts), so claims go on while earlier deliveries are still out.
   */
  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for the deliveries in flight (their outcomes are written). */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.syslog.close();
  }

  /**
   * The loop's claim: at most `room` due rows in one transaction. Held rows past their age and the cool-downs of
   * open circuits are looked at once per `pollIntervalMs` rather than at every claim (a claim may follow the last
   * within milliseconds under load); they are measured in seconds to hours, so that delay changes nothing.
   */
  private claimForLoop(room: number): Promise<ClaimedDelivery[]> {
    const housekeeping = performance.now() - this.lastHousekeeping >= this.options.pollIntervalMs;
    if (housekeeping) this.lastHousekeeping = performance.now();
    return this.claim(room, housekeeping);
  }

  private claim(limit: number, housekeeping: boolean): Promise<ClaimedDelivery[]> {
    const { db, clock } = this.platform;
    const lease = leaseMs(this.options);
    const now = clock.now();
    return db.withPlatform(async (sql) => {
      const probes: ClaimedDelivery[] = [];
      if (housekeeping) {
        const slots = await housekeep(sql, now, this.options.maxAgeMs, this.options.breakerCooldownMs, lease);
        for (const slot of slots) {
          const probe = await claimProbe(sql, now, lease, slot.tenant_id, slot.id);
          if (probe) probes.push(probe);
          else await releaseProbeSlot(sql, slot.tenant_id, slot.id);
        }
      }
      return [...probes, ...(await claimDue(sql, now, lease, limit))];
    });
  }

  /** Delivers one claimed row; a failure to write its outcome leaves the row to its lease (another claim takes it). */
  private deliverLogged(d: ClaimedDelivery): Promise<void> {
    return this.deliverOne(d).catch((error: unknown) =>
      this.platform.logger.warn(
        { delivery_id: d.id, reason: (error as Error).message },
        'webhook delivery not recorded',
      ),
    );
  }

  /**
   * One round, outside the loop (tests, a caller that drives delivery itself): dead-letters held rows past their
   * age, takes half-open probes and claims due rows, in one transaction (one BEGIN and COMMIT, issue 15); then
   * sends them concurrently and waits for their outcomes. Answers the count.
   */
  async deliverDue(): Promise<number> {
    const batch = await this.claim(this.options.batchSize, true);
    await Promise.all(batch.map((d) => this.deliverLogged(d)));
    return batch.length;
  }

  /**
   * Writes outcomes that finished together: the rows and the circuits of the destinations that answered in one
   * statement, then the failures after the last answer of each destination, in one transaction (as each outcome
   * was written before); folded in order, the circuits end as they would have one outcome at a time.
   */
  private async writeOutcomes(batch: DeliveryOutcome[]): Promise<void> {
    const effects = circuitEffects(
      batch.map((o) => ({
        tenantId: o.delivery.tenant_id,
        destinationId: o.delivery.destination_id,
        // A SET receiver's deliberate refusal is an answer: the circuit counts it as up (RFC 8935 §2.3).
        failed: o.status !== 'delivered' && o.kind !== 'rejected',
        at: o.at,
      })),
    );
    await this.platform.db.withPlatform(async (sql) => {
      await recordOutcomes(
        sql,
        batch,
        effects.filter((e) => e.close).map((e) => ({ tenantId: e.tenantId, id: e.destinationId })),
      );
      for (const e of effects)
        if (e.failures > 0)
          await recordFailures(
            sql,
            e.tenantId,
            e.destinationId,
            e.failedAt!,
            this.options.breakerFailureThreshold,
            e.failures,
          );
    });
  }

  private secretOf(d: ClaimedDelivery): Promise<string> {
    const key = `${d.tenant_id}/${d.destination_id}`;
    let secret = this.secrets.get(key);
    if (!secret) {
      secret = this.openSecret(d);
      this.secrets.set(key, secret);
      // A failed read is not kept: the next delivery reads again.
      secret.catch(() => {
        if (this.secrets.get(key) === secret) this.secrets.delete(key);
      });
    }
    return secret;
  }

  private async openSecret(d: ClaimedDelivery): Promise<string> {
    const sealed = await this.platform.db.withPlatform((sql) =>
      destinations.readSealedSecret(sql, d.tenant_id, d.destination_id),
    );
    if (sealed === null) throw new Error('the destination is gone');
    return this.sealer.openJson<string>(sealed, rowAad(TABLE, d.tenant_id, d.destination_id, 'sealed_secret'));
  }

  private async deliverOne(d: ClaimedDelivery): Promise<void> {
    const { clock } = this.platform;
    const began = performance.now();
    const setPush = d.protocol === 'set-push';
    const outcome =
      d.protocol === 'syslog-tls'
        ? // The body is the framed RFC 5424 message; TLS authenticates the collector, no HMAC header exists.
          await this.syslog.send(d.url, Buffer.from(d.body, 'utf8'))
        : await postWebhook(
            d.url,
            signWebhook(await this.secretOf(d), d.id, Math.floor(clock.now().getTime() / 1000), d.body),
            d.body,
            {
              ...this.options,
              contentType: d.content_type,
              keepAlive: true,
              ...(setPush ? { readErrorBody: { maxBytes: SET_ERROR_BODY_BYTES } } : {}),
            },
          );
    const latencyMs = Math.round(performance.now() - began);
    const now = clock.now();
    if (outcome.ok) {
      await this.outcomes.record({
        delivery: d,
        status: 'delivered',
        at: now,
        nextAttemptAt: now,
        statusCode: outcome.status,
        kind: null,
        latencyMs,
      });
      this.metrics.deliveries.inc({ outcome: 'delivered' });
      this.metrics.latency.observe({ outcome: 'delivered' }, latencyMs / 1000);
      return;
    }
    // A SET receiver that refused the event on purpose (RFC 8935 §2.3: 400 with an `err`) is up: the event is
    // dead-lettered without a retry, and the circuit counts an answer, not a failure.
    const errorCode =
      setPush && outcome.status === 400 && 'body' in outcome && outcome.body !== undefined
        ? setErrorCode(outcome.body)
        : undefined;
    const rejected = errorCode !== undefined;
    const next = rejected
      ? ({ status: 'dead' } as const)
      : afterFailure({ attempt: d.attempts, createdAt: new Date(d.created_at), now }, this.options);
    await this.outcomes.record({
      delivery: d,
      status: next.status,
      at: now,
      nextAttemptAt: next.status === 'failed' ? next.nextAttemptAt : now,
      statusCode: outcome.status,
      kind: rejected ? 'rejected' : outcome.kind,
      latencyMs,
      errorCode: errorCode ?? null,
    });
    this.metrics.deliveries.inc({ outcome: next.status });
    this.metrics.latency.observe({ outcome: 'failed' }, latencyMs / 1000);
    this.platform.logger.info(
      {
        tenant_id: d.tenant_id,
        delivery_id: d.id,
        destination_id: d.destination_id,
        kind: outcome.kind,
        status: outcome.status,
        next: next.status,
      },
      'webhook delivery failed',
    );
  }
}

const services = new WeakMap<Platform, OutboundService>();

/**
 * The process's outbound service of a platform (one per platform: its metrics and secret cache are shared by the
 * routes and the loop). The options count only on the first call.
 */
export function outboundService(platform: Platform, options: Partial<OutboundOptions> = {}): OutboundService {
  let service = services.get(platform);
  if (!service) {
    service = new OutboundService(platform, options);
    services.set(platform, service);
  }
  return service;
}

/** A syslog URL takes the syslog protocol and nothing else does: a webhook is never written to a syslog port. */
function assertProtocolFits(input: NewDestination): void {
  if (isSyslogTlsUrl(input.url) !== (input.protocol === 'syslog-tls'))
    throw new AppError('invalid_request', 'The destination URL does not fit the destination protocol.', {
      field: 'url',
    });
}
