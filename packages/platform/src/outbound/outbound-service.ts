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
import { recordFailure, recordSuccess, releaseProbeSlot, takeProbeSlots } from './storage/breaker-store.js';
import * as destinations from './storage/destination-store.js';
import {
  claimDue,
  claimProbe,
  expireHeld,
  listDeliveries,
  markDelivered,
  markFailed,
  type ClaimedDelivery,
} from './storage/outbox-store.js';
import { assertPublicDestination, DestinationRefused, isSyslogTlsUrl } from './transport/destination-url.js';
import { postWebhook } from './transport/post-webhook.js';
import { SyslogTlsSender } from './transport/send-syslog.js';
import { SET_ERROR_BODY_BYTES, setErrorCode } from './domain/set-push.js';
import { pollRounds } from '../jobs/poll-rounds.js';

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
  private readonly secrets = new Map<string, string>();
  private readonly syslog: SyslogTlsSender;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly platform: Platform,
    options: Partial<OutboundOptions> = {},
  ) {
    this.options = { ...DEFAULT_OUTBOUND_OPTIONS, ...options };
    this.sealer = new JsonSealer(platform.keys, this.options.sealerAlias);
    this.metrics = new OutboundMetrics(platform.metrics, platform.db);
    this.syslog = new SyslogTlsSender(this.options);
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
    this.wake?.();
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

  /** Starts this replica's delivery loop. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops the loop after the round in flight (its outcomes are written). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    this.syslog.close();
  }

  private run(): Promise<void> {
    return pollRounds({
      isRunning: () => this.running,
      round: () => this.deliverDue(),
      intervalMs: this.options.pollIntervalMs,
      onError: (error) => this.platform.logger.warn({ reason: error.message }, 'webhook delivery round failed'),
      setWake: (wake) => (this.wake = wake),
    });
  }

  /** One round: dead-letters held rows past their age, sends half-open probes, then due rows. Answers the count. */
  async deliverDue(): Promise<number> {
    const { db, clock } = this.platform;
    const lease = leaseMs(this.options);
    const now = clock.now();
    await db.withPlatform((sql) => expireHeld(sql, now, this.options.maxAgeMs));
    const probes: ClaimedDelivery[] = [];
    const slots = await db.withPlatform((sql) => takeProbeSlots(sql, now, this.options.breakerCooldownMs, lease));
    for (const slot of slots) {
      const probe = await db.withPlatform((sql) => claimProbe(sql, now, lease, slot.tenant_id, slot.id));
      if (probe) probes.push(probe);
      else await db.withPlatform((sql) => releaseProbeSlot(sql, slot.tenant_id, slot.id));
    }
    const due = await db.withPlatform((sql) => claimDue(sql, now, lease, this.options.batchSize));
    const batch = [...probes, ...due];
    await Promise.all(
      batch.map((d) =>
        // A failure to write an outcome leaves the row to its lease: another round takes it over.
        this.deliverOne(d).catch((error: unknown) =>
          this.platform.logger.warn(
            { delivery_id: d.id, reason: (error as Error).message },
            'webhook delivery not recorded',
          ),
        ),
      ),
    );
    return batch.length;
  }

  private async secretOf(d: ClaimedDelivery): Promise<string> {
    const key = `${d.tenant_id}/${d.destination_id}`;
    const cached = this.secrets.get(key);
    if (cached) return cached;
    const sealed = await this.platform.db.withPlatform((sql) =>
      destinations.readSealedSecret(sql, d.tenant_id, d.destination_id),
    );
    if (sealed === null) throw new Error('the destination is gone');
    const secret = await this.sealer.openJson<string>(
      sealed,
      rowAad(TABLE, d.tenant_id, d.destination_id, 'sealed_secret'),
    );
    this.secrets.set(key, secret);
    return secret;
  }

  private async deliverOne(d: ClaimedDelivery): Promise<void> {
    const { db, clock } = this.platform;
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
              ...(setPush ? { readErrorBody: { maxBytes: SET_ERROR_BODY_BYTES } } : {}),
            },
          );
    const latencyMs = Math.round(performance.now() - began);
    const now = clock.now();
    if (outcome.ok) {
      await db.withPlatform(async (sql) => {
        await markDelivered(sql, d, { now, statusCode: outcome.status, latencyMs });
        await recordSuccess(sql, d.tenant_id, d.destination_id);
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
    await db.withPlatform(async (sql) => {
      await markFailed(sql, d, {
        status: next.status,
        nextAttemptAt: next.status === 'failed' ? next.nextAttemptAt : now,
        statusCode: outcome.status,
        kind: rejected ? 'rejected' : outcome.kind,
        latencyMs,
        errorCode: errorCode ?? null,
      });
      if (rejected) await recordSuccess(sql, d.tenant_id, d.destination_id);
      else await recordFailure(sql, d.tenant_id, d.destination_id, now, this.options.breakerFailureThreshold);
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
