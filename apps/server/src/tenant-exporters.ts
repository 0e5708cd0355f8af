import {
  eventStreamsExporter,
  registerTenantExporter,
  signingKeyAliasesExporter,
  webhookDestinationsExporter,
  type Platform,
} from '@tessera/platform';
import { verifierQueriesExporter } from '@tessera/bridge';
import { credentialDesignsExporter } from '@tessera/designs';
import { issuancePipelinesExporter } from '@tessera/issuance';
import { documentSigningKeysExporter } from '@tessera/signing';
import { tokenServiceClientsExporter } from '@tessera/token-service';
import type { ServerConfig } from './config.js';
import { forwardingOf } from './event-forwarding.js';

/**
 * Every context's part of the tenant export (001 §4.5), registered in every process whatever its roles: the export
 * and import run on the management listener and need the whole tenant. Each exporter is its context's own
 * (its SQL stays there); the platform only assembles the document.
 */
export function registerTenantExporters(platform: Platform, config: ServerConfig): void {
  registerTenantExporter(platform, webhookDestinationsExporter(platform));
  registerTenantExporter(platform, signingKeyAliasesExporter(platform));
  registerTenantExporter(platform, eventStreamsExporter(forwardingOf(platform, config)));
  registerTenantExporter(platform, credentialDesignsExporter());
  registerTenantExporter(platform, issuancePipelinesExporter(platform.clock));
  registerTenantExporter(platform, documentSigningKeysExporter());
  registerTenantExporter(platform, tokenServiceClientsExporter(config.tokenService, config.tenancy.defaultTenant));
  registerTenantExporter(platform, verifierQueriesExporter(config.bridge));
}
