import Type, { type Static } from 'typebox';
import { STREAM_FORMATS, type ForwarderFormat, type StreamFormat } from '../../event-forwarding/domain/stream.js';
import type { EventForwardingService } from '../../event-forwarding/event-forwarding-service.js';
import { listStreams } from '../../event-forwarding/storage/stream-store.js';
import { checkDestinationUrl, DestinationRefused } from '../../outbound/transport/destination-url.js';
import { invalidRequest } from '../../errors/index.js';
import type { SectionImportResult, TenantExporter } from '../exporter.js';

const EventStreams = Type.Array(
  Type.Object(
    {
      format: Type.Unsafe<StreamFormat>(Type.Union(STREAM_FORMATS.map((f) => Type.Literal(f)))),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      /** SSF streams: the SETs' `aud` (the receiver's client). */
      audience: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 10 }),
      eventsRequested: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 100 }),
      description: Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  { maxItems: 1000 },
);
type EventStreams = Static<typeof EventStreams>;

/**
 * The tenant's SSF streams and generic audit forwarders (integrations, 001 §4.5 and §6), for the tenant export:
 * format, receiver URL, audience, events requested, description. The import creates each through the forwarding
 * service (its own units of work, after the import's transaction): new stream ids, a new signing secret (answered
 * once for the forwarders), the status `enabled`, and a cursor at the target's audit head, so no audit history is
 * replayed to the receiver. Ids, status and cursor are runtime state and are not exported.
 */
export function eventStreamsExporter(service: EventForwardingService): TenantExporter<EventStreams> {
  return {
    section: 'platform.event-streams',
    origin: 'stored',
    schema: EventStreams,
    async read({ sql }) {
      const streams = await listStreams(sql, STREAM_FORMATS);
      return streams
        .map((s) => ({
          format: s.format,
          url: s.url,
          audience: s.audience,
          eventsRequested: s.eventsRequested,
          description: s.description,
        }))
        .sort((a, b) => `${a.format} ${a.url}`.localeCompare(`${b.format} ${b.url}`));
    },
    async isEmpty({ sql }) {
      return (await sql.query('SELECT 1 FROM event_streams LIMIT 1')).rowCount === 0;
    },
    // Checked in the import's transaction so that a refused URL refuses the whole import before anything is written.
    write(_unit, data) {
      for (const [i, s] of data.entries()) {
        try {
          checkDestinationUrl(s.url, { allowHttp: false, allowPrivateOrigins: [] });
        } catch (error) {
          if (error instanceof DestinationRefused)
            throw invalidRequest(
              `The stream URL is refused: ${error.message}.`,
              `sections.platform.event-streams.data.${i}.url`,
            );
          throw error;
        }
        if (s.format === 'set' && s.audience.length === 0)
          throw invalidRequest(
            'An SSF stream needs its audience.',
            `sections.platform.event-streams.data.${i}.audience`,
          );
      }
      return Promise.resolve();
    },
    async afterCommit(tenantId, data): Promise<SectionImportResult> {
      const issuedSecrets: Record<string, string> = {};
      for (const s of data) {
        if (s.format === 'set') {
          const receiver = s.audience[0]!;
          await service.createStream(
            tenantId,
            { id: receiver, kind: 'client', tenantId, roles: [], scopes: [], clientId: receiver, issuer: null },
            { endpointUrl: s.url, eventsRequested: s.eventsRequested, description: s.description ?? undefined },
          );
        } else {
          const { forwarder, secret } = await service.createForwarder(tenantId, {
            url: s.url,
            format: s.format as ForwarderFormat,
            eventTypes: s.eventsRequested,
          });
          issuedSecrets[forwarder.id] = secret;
        }
      }
      return data.length > 0
        ? { issuedSecrets, notes: ['SSF streams have new stream ids: their receivers read them anew.'] }
        : { issuedSecrets };
    },
  };
}
