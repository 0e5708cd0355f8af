import Type, { type Static } from 'typebox';
import { JsonSealer, rowAad } from '../../keys/json-sealer.js';
import { DEFAULT_OUTBOUND_OPTIONS } from '../../outbound/domain/options.js';
import { generateWebhookSecret } from '../../outbound/signature.js';
import { checkDestinationUrl, DestinationRefused } from '../../outbound/transport/destination-url.js';
import { insertDestination, listDestinations } from '../../outbound/storage/destination-store.js';
import { invalidRequest } from '../../errors/index.js';
import type { Platform } from '../../platform.js';
import type { TenantExporter } from '../exporter.js';

const WebhookDestinations = Type.Array(
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      url: Type.String({ minLength: 1, maxLength: 2048 }),
      enabled: Type.Boolean(),
      eventTypes: Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' }), {
        maxItems: 100,
      }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 1000 },
);
type WebhookDestinations = Static<typeof WebhookDestinations>;

/**
 * Webhook destinations of the tenant (an integration, 001 §4.5): URL, event types, enabled. Their signing secrets
 * are key material and never leave: the import issues a new `whsec_` secret per destination, answered once to the
 * administrator who must hand it to the receiver. Circuit state and deliveries are runtime state, not exported.
 * The import applies the destination URL rules without a DNS lookup (https, no private address literal); the
 * delivery's fetch checks the resolved address again at send time.
 */
export function webhookDestinationsExporter(
  platform: Platform,
  sealerAlias = DEFAULT_OUTBOUND_OPTIONS.sealerAlias,
): TenantExporter<WebhookDestinations> {
  const sealer = new JsonSealer(platform.keys, sealerAlias);
  return {
    section: 'platform.webhook-destinations',
    origin: 'stored',
    schema: WebhookDestinations,
    async read({ sql }) {
      return (await listDestinations(sql)).map((d) => ({
        id: d.id,
        url: d.url,
        enabled: d.enabled,
        eventTypes: d.eventTypes,
      }));
    },
    async isEmpty({ sql }) {
      return (await sql.query('SELECT 1 FROM webhook_destinations LIMIT 1')).rowCount === 0;
    },
    async write({ tenantId, sql }, data) {
      const issuedSecrets: Record<string, string> = {};
      for (const [i, d] of data.entries()) {
        try {
          checkDestinationUrl(d.url, { allowHttp: false, allowPrivateOrigins: [] });
        } catch (error) {
          if (error instanceof DestinationRefused)
            throw invalidRequest(
              `The destination URL is refused: ${error.message}.`,
              `sections.platform.webhook-destinations.data.${i}.url`,
            );
          throw error;
        }
        const secret = generateWebhookSecret();
        const id = d.id;
        await insertDestination(sql, {
          id,
          url: d.url,
          enabled: d.enabled,
          eventTypes: [...new Set(d.eventTypes)],
          sealedSecret: await sealer.sealJson(
            secret,
            rowAad('webhook_destinations', tenantId, id, 'sealed_secret'),
            sql,
          ),
        });
        issuedSecrets[id] = secret;
      }
      return { issuedSecrets };
    },
  };
}
