import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { JWK } from 'jose';
import { auditKeyAlias, AUDIT_SIGNING_ALGORITHM } from '../audit/audit-store.js';
import type { AuditEvent } from '../audit/audit-log.js';
import type { Principal } from '../auth/principal.js';
import type { WriteUnit } from '../commands/command.js';
import { AppError } from '../errors/index.js';
import { signJwt } from '../keys/sign-jwt.js';
import { updateDestinationUrl } from '../outbound/storage/destination-store.js';
import { insertOwnedDeliveries, type OwnedDelivery } from '../outbound/storage/outbox-store.js';
import type { CircuitState } from '../outbound/domain/delivery.js';
import type { OutboundService } from '../outbound/outbound-service.js';
import { isSyslogTlsUrl } from '../outbound/transport/destination-url.js';
import type { Platform } from '../platform.js';
import { forwardedBody } from './domain/bodies.js';
import { frameSyslog, toSyslogMessage } from './domain/syslog-message.js';
import { ForwardingMetrics } from './forwarding-metrics.js';
import { deliveryIdOf } from './domain/delivery-id.js';
import { EVENTS_SUPPORTED, eventsDelivered, securityEventOf, SSF_VERIFICATION } from './domain/event-types.js';
import { SET_CONTENT_TYPE, SET_TYPE, setClaims } from './domain/security-event-token.js';
import {
  STREAM_DESTINATION_OWNER,
  type EventStream,
  type ForwarderFormat,
  type StreamFormat,
  type StreamStatus,
} from './domain/stream.js';
import * as store from './storage/stream-store.js';
import { pollRounds } from '../jobs/poll-rounds.js';

export interface EventForwardingOptions {
  /**
   * Base URL of the transmitter as receivers reach it (the token service's internal port): each tenant's SSF
   * issuer is `<transmitterUrl>/ssf/<tenant>`.
   */
  transmitterUrl: string;
  /** Pause of the forwarding loop after a round that found nothing (default 1 s). */
  pollIntervalMs: number;
  /** Audit events one round writes per stream at most (default 200). */
  batchSize: number;
  /** Streams one round takes at most (default 20). */
  streamsPerRound: number;
  /** Written into CEF and OCSF records (config build.version). */
  productVersion?: string | undefined;
}

export const DEFAULT_EVENT_FORWARDING_OPTIONS: Omit<EventForwardingOptions, 'transmitterUrl'> = {
  pollIntervalMs: 1_000,
  batchSize: 200,
  streamsPerRound: 20,
};

const SSF_FORMATS: readonly StreamFormat[] = ['set'];
const FORWARDER_FORMATS: readonly StreamFormat[] = ['json', 'cef', 'ocsf'];
/** The RFC 5424 header fields of this process (syslog forwarders). */
const SYSLOG_HEADER = { hostname: hostname(), procId: String(process.pid) };
const SYSLOG = 'text/plain; charset=utf-8';
/** RFC 8935 push, the one delivery method this transmitter offers. */
export const PUSH_DELIVERY_METHOD = 'urn:ietf:rfc:8935';

/** An SSF stream configuration (SSF 1.0 §8.1.1) as the stream management API answers it. */
export interface StreamConfiguration {
  stream_id: string;
  iss: string;
  aud: string | string[];
  events_supported: string[];
  events_requested: string[];
  events_delivered: string[];
  delivery: { method: string; endpoint_url: string };
  description?: string;
}

export interface Forwarder {
  id: string;
  url: string;
  format: ForwarderFormat;
  eventTypes: string[];
  destinationId: string;
  /** The circuit breaker of its destination: `open` while the SIEM keeps failing (deliveries are held). */
  circuitState: CircuitState;
  createdAt: string;
}

/**
 * Audit forwarding (001 §6 "a shared-signals module or a generic event transmitter"). A stream reads its tenant's
 * audit chain after its cursor and writes one outbox delivery per event, advancing the cursor in the same
 * transaction; the outbox's loop then delivers, retries and breaks circuits (outbound/). Nothing here runs on a
 * command's path: forwarding can lag or fail without any command waiting for it or failing with it.
 */
export class EventForwardingService {
  readonly options: EventForwardingOptions;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly keysEnsured = new Map<string, Promise<unknown>>();
  private readonly metrics: ForwardingMetrics;

  constructor(
    private readonly platform: Platform,
    private readonly outbound: OutboundService,
    options: Partial<EventForwardingOptions> & { transmitterUrl: string },
  ) {
    this.options = { ...DEFAULT_EVENT_FORWARDING_OPTIONS, ...options };
    this.options.transmitterUrl = this.options.transmitterUrl.replace(/\/+$/, '');
    this.metrics = new ForwardingMetrics(platform.metrics, platform.db);
  }

  // --- Transmitter metadata (SSF 1.0 §7) ------------------------------------------------------------------------

  issuerOf(tenantId: string): string {
    return `${this.options.transmitterUrl}/ssf/${tenantId}`;
  }

  /** SSF 1.0 §7.1 transmitter configuration metadata of a tenant's transmitter. */
  metadata(tenantId: string): Record<string, unknown> {
    const base = this.options.transmitterUrl;
    return {
      spec_version: '1_0',
      issuer: this.issuerOf(tenantId),
      jwks_uri: `${this.issuerOf(tenantId)}/jwks.json`,
      delivery_methods_supported: [PUSH_DELIVERY_METHOD],
      configuration_endpoint: `${base}/ssf/streams`,
      status_endpoint: `${base}/ssf/status`,
      verification_endpoint: `${base}/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6750' }],
    };
  }

  /** The tenant's audit key set: the keys SETs are signed with (created on first use, like the audit's own). */
  async jwks(tenantId: string): Promise<{ keys: JWK[] }> {
    await this.ensureKey(tenantId);
    return { keys: await this.platform.keys.publishedJwks(auditKeyAlias(tenantId)) };
  }

  private ensureKey(tenantId: string): Promise<unknown> {
    let ensured = this.keysEnsured.get(tenantId);
    if (!ensured) {
      ensured = this.platform.keys.ensure(auditKeyAlias(tenantId), AUDIT_SIGNING_ALGORITHM);
      ensured.catch(() => this.keysEnsured.delete(tenantId));
      this.keysEnsured.set(tenantId, ensured);
    }
    return ensured;
  }

  // --- SSF stream management (SSF 1.0 §8.1.1) -------------------------------------------------------------------

  /** A stream for the calling receiver: its `aud` is the receiver's client (else its subject). */
  async createStream(
    tenantId: string,
    principal: Principal | null,
    input: { endpointUrl: string; eventsRequested: readonly string[]; description?: string | undefined },
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<StreamConfiguration> {
    const audience = principal?.clientId ?? principal?.id;
    if (!audience) throw new AppError('unauthenticated', 'A stream belongs to an authenticated receiver.');
    const { stream } = await this.createStreamWithSecret(
      tenantId,
      {
        url: input.endpointUrl,
        field: 'delivery.endpoint_url',
        format: 'set',
        audience: [audience],
        eventsRequested: [...new Set(input.eventsRequested)],
        description: input.description ?? null,
      },
      unit,
    );
    return this.configurationOf(stream);
  }

  async readStreams(tenantId: string, streamId?: string): Promise<StreamConfiguration[]> {
    const streams = await this.platform.db.withTenantSession(tenantId, (sql) =>
      store.listStreams(sql, SSF_FORMATS, streamId),
    );
    if (streamId !== undefined && streams.length === 0) throw new AppError('not_found', 'No such stream.');
    return streams.map((s) => this.configurationOf(s));
  }

  async updateStream(
    tenantId: string,
    streamId: string,
    change: {
      endpointUrl?: string | undefined;
      eventsRequested?: readonly string[] | undefined;
      description?: string | undefined;
    },
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<StreamConfiguration> {
    await this.readStreamRows(tenantId, SSF_FORMATS, streamId);
    // The URL check resolves the host: before the unit opens, so the transaction holds no lookup.
    if (change.endpointUrl !== undefined)
      await this.outbound.assertDestinationUrl(change.endpointUrl, 'delivery.endpoint_url');
    const updated = await unit(async (sql) => {
      // Read again in the unit: a stream deleted since the check above is not found, and nothing is written.
      const [stream] = await store.listStreams(sql, SSF_FORMATS, streamId);
      if (!stream) throw new AppError('not_found', 'No such stream.');
      if (change.endpointUrl !== undefined) await updateDestinationUrl(sql, stream.destinationId, change.endpointUrl);
      await store.updateStream(sql, streamId, {
        eventsRequested: change.eventsRequested ? [...new Set(change.eventsRequested)] : undefined,
        description: change.description,
        now: this.platform.clock.now(),
      });
      return (await store.listStreams(sql, SSF_FORMATS, streamId))[0]!;
    });
    return this.configurationOf(updated);
  }

  async deleteStream(
    tenantId: string,
    streamId: string,
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<void> {
    await unit(async (sql) => {
      if (!(await store.deleteStream(sql, streamId, SSF_FORMATS))) throw new AppError('not_found', 'No such stream.');
    });
  }

  /** SSF 1.0 §8.1.2 stream status. */
  async readStatus(
    tenantId: string,
    streamId: string,
  ): Promise<{ stream_id: string; status: StreamStatus; reason?: string }> {
    const [stream] = await this.readStreamRows(tenantId, SSF_FORMATS, streamId);
    return {
      stream_id: stream!.id,
      status: stream!.status,
      ...(stream!.statusReason === null ? {} : { reason: stream!.statusReason }),
    };
  }

  async updateStatus(
    tenantId: string,
    streamId: string,
    status: StreamStatus,
    reason?: string,
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<{ stream_id: string; status: StreamStatus; reason?: string }> {
    const stream = await unit(async (sql) => {
      // Only an SSF stream has a status to set here: a forwarder (SSF_FORMATS excludes it) is not found.
      if ((await store.listStreams(sql, SSF_FORMATS, streamId)).length === 0)
        throw new AppError('not_found', 'No such stream.');
      const now = this.platform.clock.now();
      await store.updateStream(sql, streamId, { status: { status, reason: reason ?? null }, now });
      return (await store.listStreams(sql, SSF_FORMATS, streamId))[0]!;
    });
    if (status === 'enabled') this.poke();
    return {
      stream_id: stream.id,
      status: stream.status,
      ...(stream.statusReason === null ? {} : { reason: stream.statusReason }),
    };
  }

  /**
   * SSF 1.0 §8.1.4: a verification event to the stream's receiver, with the receiver's `state` echoed. It goes
   * through the outbox like every SET (delivered after this call answers).
   */
  async verifyStream(
    tenantId: string,
    streamId: string,
    state: string | undefined,
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<void> {
    const [stream] = await this.readStreamRows(tenantId, SSF_FORMATS, streamId);
    await this.ensureKey(tenantId);
    const now = this.platform.clock.now();
    const jti = randomUUID();
    const token = await signJwt(
      this.platform.keys,
      auditKeyAlias(tenantId),
      {
        iss: this.issuerOf(tenantId),
        aud: stream!.audience.length === 1 ? stream!.audience[0] : stream!.audience,
        jti,
        iat: Math.floor(now.getTime() / 1000),
        sub_id: { format: 'opaque', id: stream!.id },
        events: { [SSF_VERIFICATION]: state === undefined ? {} : { state } },
      },
      { typ: SET_TYPE },
    );
    // Signed before the unit opens (the key manager cannot join a transaction); only the outbox row is written in it.
    await unit((sql) =>
      insertOwnedDeliveries(
        sql,
        tenantId,
        [
          {
            id: deliveryIdOf(stream!.id, jti),
            destinationId: stream!.destinationId,
            eventType: SSF_VERIFICATION,
            body: token,
            contentType: SET_CONTENT_TYPE,
          },
        ],
        now,
      ),
    );
    this.outbound.poke();
  }

  // --- Generic forwarders ---------------------------------------------------------------------------------------

  /** A forwarder of the tenant's audit events in one format; answers it with its Standard Webhooks secret, once. */
  async createForwarder(
    tenantId: string,
    input: { url: string; format: ForwarderFormat; eventTypes?: readonly string[] | undefined },
    unit: WriteUnit = this.transactionOf(tenantId),
  ): Promise<{ forwarder: Forwarder; secret: string }> {
    const { stream, secret } = await this.createStreamWithSecret(
      tenantId,
      {
        url: input.url,
        field: 'url',
        format: input.format,
        audience: [],
        eventsRequested: [...new Set(input.eventTypes ?? [])],
        description: null,
      },
      unit,
    );
    return { forwarder: toForwarder(stream), secret };
  }

  async listForwarders(tenantId: string): Promise<Forwarder[]> {
    return (await this.readStreamRows(tenantId, FORWARDER_FORMATS)).map(toForwarder);
  }

  async deleteForwarder(tenantId: string, id: string, unit: WriteUnit = this.transactionOf(tenantId)): Promise<void> {
    await unit(async (sql) => {
      if (!(await store.deleteStream(sql, id, FORWARDER_FORMATS)))
        throw new AppError('not_found', 'No such event forwarder.');
    });
  }

  // --- Streams, shared ------------------------------------------------------------------------------------------

  private async readStreamRows(
    tenantId: string,
    formats: readonly StreamFormat[],
    id?: string,
  ): Promise<EventStream[]> {
    const rows = await this.platform.db.withTenantSession(tenantId, (sql) => store.listStreams(sql, formats, id));
    if (id !== undefined && rows.length === 0) throw new AppError('not_found', 'No such stream.');
    return rows;
  }

  /** A transaction of the tenant: the unit of a write made outside the command bus. */
  private transactionOf(tenantId: string): WriteUnit {
    return (fn) => this.platform.db.withTenant(tenantId, fn);
  }

  /**
   * The stream's outbox destination (URL checked against the SSRF rules, circuit breaker, signing secret), then
   * the stream, in one unit: the URL check (a DNS lookup) comes before it, so no destination is left without its
   * stream and a command's audit event commits with both.
   */
  private async createStreamWithSecret(
    tenantId: string,
    input: {
      url: string;
      field: string;
      format: StreamFormat;
      audience: readonly string[];
      eventsRequested: readonly string[];
      description: string | null;
    },
    unit: WriteUnit,
  ): Promise<{ stream: EventStream; secret: string }> {
    await this.outbound.assertDestinationUrl(input.url, input.field);
    const id = randomUUID();
    return unit(async (sql) => {
      const { destination, secret } = await this.outbound.insertDestination(sql, tenantId, {
        url: input.url,
        protocol: input.format === 'set' ? 'set-push' : isSyslogTlsUrl(input.url) ? 'syslog-tls' : 'standard-webhooks',
        managedBy: STREAM_DESTINATION_OWNER,
      });
      await store.insertStream(sql, {
        id,
        destinationId: destination.id,
        format: input.format,
        audience: input.audience,
        eventsRequested: input.eventsRequested,
        description: input.description,
        now: this.platform.clock.now(),
      });
      const [stream] = await store.listStreams(sql, [input.format], id);
      return { stream: stream!, secret };
    });
  }

  private configurationOf(s: EventStream): StreamConfiguration {
    return {
      stream_id: s.id,
      iss: this.issuerOf(s.tenantId),
      aud: s.audience.length === 1 ? s.audience[0]! : s.audience,
      events_supported: [...EVENTS_SUPPORTED],
      events_requested: s.eventsRequested,
      events_delivered: eventsDelivered(s.eventsRequested),
      delivery: { method: PUSH_DELIVERY_METHOD, endpoint_url: s.url },
      ...(s.description === null ? {} : { description: s.description }),
    };
  }

  // --- The forwarding loop --------------------------------------------------------------------------------------

  /** Starts this replica's forwarding loop; replicas never write the same event twice (forwardDue). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  poke(): void {
    this.wake?.();
  }

  private run(): Promise<void> {
    return pollRounds({
      isRunning: () => this.running,
      round: () => this.forwardDue(),
      intervalMs: this.options.pollIntervalMs,
      onError: (error) => this.platform.logger.warn({ reason: error.message }, 'event forwarding round failed'),
      setWake: (wake) => (this.wake = wake),
    });
  }

  /**
   * One round: for each stream behind its tenant's chain, reads the events after its cursor, makes their bodies
   * (SETs are signed here, outside any transaction: signing may read keys from the database), then in one
   * transaction takes the stream (SKIP LOCKED, cursor unchanged), writes the deliveries and moves the cursor. A
   * process that dies before the commit leaves the cursor where it was; one that lost the stream to another
   * replica drops its work. Answers the number of events the round moved past.
   */
  async forwardDue(): Promise<number> {
    const { db } = this.platform;
    const streams = await db.withPlatform((sql) => store.streamsBehind(sql, this.options.streamsPerRound));
    let moved = 0;
    for (const stream of streams) {
      try {
        moved += await this.forwardStream(stream);
      } catch (error) {
        this.platform.logger.warn(
          { tenant_id: stream.tenantId, stream_id: stream.id, reason: (error as Error).message },
          'event forwarding of a stream failed',
        );
      }
    }
    if (moved > 0) this.outbound.poke();
    return moved;
  }

  private async forwardStream(stream: EventStream): Promise<number> {
    const { db, clock } = this.platform;
    const events = await db.withPlatform((sql) =>
      store.auditEventsAfter(sql, stream.tenantId, stream.cursorSeq, this.options.batchSize),
    );
    const last = events[events.length - 1];
    if (!last) return 0;
    // A disabled stream moves past what happens while it is disabled (SSF 1.0 §8.1.2); an enabled one sends.
    const deliveries = stream.status === 'enabled' ? await this.deliveriesOf(stream, events) : [];
    const now = clock.now();
    const taken = await db.withPlatform(async (sql) => {
      if (!(await store.lockStreamAt(sql, stream.tenantId, stream.id, stream.cursorSeq))) return false;
      await insertOwnedDeliveries(sql, stream.tenantId, deliveries, now);
      await store.advanceCursor(sql, stream.tenantId, stream.id, last.seq);
      return true;
    });
    if (taken) this.metrics.forwarded.inc({ format: stream.format }, deliveries.length);
    return taken ? events.length : 0;
  }

  private async deliveriesOf(stream: EventStream, events: AuditEvent[]): Promise<OwnedDelivery[]> {
    const out: OwnedDelivery[] = [];
    if (stream.format === 'set') {
      const delivered = new Set(eventsDelivered(stream.eventsRequested));
      const wanted = events
        .map((event) => ({ event, securityEvent: securityEventOf(event) }))
        .filter((e) => delivered.has(e.securityEvent.uri));
      if (wanted.length > 0) await this.ensureKey(stream.tenantId);
      const issuer = this.issuerOf(stream.tenantId);
      const issuedAt = this.platform.clock.now();
      for (const { event, securityEvent } of wanted) {
        const claims = setClaims({ issuer, audience: stream.audience, event, securityEvent, issuedAt });
        out.push({
          id: deliveryIdOf(stream.id, event.eventId),
          destinationId: stream.destinationId,
          eventType: securityEvent.uri,
          body: await signJwt(this.platform.keys, auditKeyAlias(stream.tenantId), claims, { typ: SET_TYPE }),
          contentType: SET_CONTENT_TYPE,
        });
      }
      return out;
    }
    const types = new Set(stream.eventsRequested);
    const syslog = isSyslogTlsUrl(stream.url);
    for (const event of events) {
      if (types.size > 0 && !types.has(event.type)) continue;
      const { body, contentType } = forwardedBody(stream.format, event, {
        ...(this.options.productVersion === undefined ? {} : { productVersion: this.options.productVersion }),
      });
      out.push({
        id: deliveryIdOf(stream.id, event.eventId),
        destinationId: stream.destinationId,
        eventType: event.type,
        // To a syslog collector the body goes as one framed RFC 5424 message (RFC 5425 §4.3), made here once.
        ...(syslog
          ? { body: frameSyslog(toSyslogMessage(event, body, SYSLOG_HEADER)).toString('utf8'), contentType: SYSLOG }
          : { body, contentType }),
      });
    }
    return out;
  }
}

const toForwarder = (s: EventStream): Forwarder => ({
  id: s.id,
  url: s.url,
  format: s.format as ForwarderFormat,
  eventTypes: s.eventsRequested,
  destinationId: s.destinationId,
  circuitState: s.circuitState,
  createdAt: s.createdAt,
});

const services = new WeakMap<Platform, EventForwardingService>();

/**
 * The process's forwarding service of a platform (one per platform, over its outbound service: the transmitter
 * routes and the loop share it). The options count only on the first call.
 */
export function eventForwardingService(
  platform: Platform,
  outbound: OutboundService,
  options: Partial<EventForwardingOptions> & { transmitterUrl: string },
): EventForwardingService {
  let service = services.get(platform);
  if (!service) {
    service = new EventForwardingService(platform, outbound, {
      productVersion: platform.config.build.version,
      ...options,
    });
    services.set(platform, service);
  }
  return service;
}
