import type { DestinationStream } from 'pino';
import {
  assertProductionSafe,
  ConfigError,
  createPlatform,
  createRoleApp,
  registerAuditRoutes,
  registerWebhookRoutes,
  registerForwarderRoutes,
  registerTenantExportRoutes,
  authenticationEvents,
  type Platform,
  type RoleApp,
  type RoleName,
} from '@tessera/platform';
import type { ServerConfig } from './config.js';
import { allMigrations } from './migrations.js';
import { ROLES } from './roles/index.js';
import { announceDevelopmentDefaults } from './announce.js';
import { Contexts } from './contexts.js';
import { assertPublicUrlsSecure } from './public-urls.js';
import { registerTenantExporters } from './tenant-exporters.js';
import { forwardingOf, outboundOf } from './event-forwarding.js';
import {
  applyDevelopmentProfile,
  DEMO_RP,
  demoRpRedirectUri,
  startDevelopmentIdentityProvider,
  trustDemoCredentialIssuer,
  trustOwnTokenService,
} from './development.js';

export interface RunningServer {
  platform: Platform;
  /** Listening apps by listener name (e.g. `bridge`, `token-internal`). */
  apps: Map<string, { app: RoleApp; url: string }>;
  close(): Promise<void>;
}

export interface StartOptions {
  logDestination?: DestinationStream;
  /** Listen on port 0 for every listener (tests): the chosen ports are in `apps`. */
  ephemeralPorts?: boolean;
  /** Announce development defaults on stderr too (the CLI does; tests don't). */
  banner?: boolean;
}

export function serviceNameFor(roles: readonly RoleName[]): string {
  return roles.length === 1 ? ROLES[roles[0]!].serviceName : 'tessera';
}

/**
 * The management listener of the process (issue 13 §3; 001 §4.5 "every container, not for the public gateway"):
 * /health, /ready, /version and /metrics for every role of the process, and the audit API, on
 * `server.managementHost` (loopback by default) and `server.ports.management` (9000).
 */
async function startManagementListener(platform: Platform, config: ServerConfig, ephemeral: boolean) {
  const app = await createRoleApp(platform, {
    role: 'management',
    title: 'Tessera management',
    family: 'oauth',
    operational: 'all',
  });
  registerAuditRoutes(app, platform);
  // Webhook destinations and delivery status (001 §4.5 "webhook delivery status"), beside the audit API.
  registerWebhookRoutes(app, platform, outboundOf(platform, config));
  // Generic audit event forwarders to a SIEM (001 §6), beside the webhook API; the SSF transmitter is on the token
  // service's internal port.
  registerForwarderRoutes(app, platform, forwardingOf(platform, config));
  // Tenant export and import (001 §4.5), beside the audit API: every context's exporter is registered here.
  registerTenantExporters(platform, config);
  registerTenantExportRoutes(app, platform);
  const url = await app.listen({
    host: config.server.managementHost,
    port: ephemeral ? 0 : config.server.ports.management,
  });
  platform.logger.info({ role: 'management', url }, 'listening');
  return { app, url };
}

/** Starts the platform and every configured role in this process. */
export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const roles = [...new Set(config.roles)];
  // Development defaults are refused in production before anything else is looked at.
  assertProductionSafe(config);
  assertPublicUrlsSecure(config);
  trustOwnTokenService(config);
  const development = await applyDevelopmentProfile(config);
  if (roles.includes('portal') && !config.portal.clientSecret) {
    throw new ConfigError('portal.clientSecret', 'is required for the portal role (its client at the token service)');
  }
  const platform = await createPlatform(config, {
    migrations: allMigrations,
    serviceName: config.telemetry.serviceName ?? serviceNameFor(roles),
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
  });
  platform.developmentDefaults.push(...development.announcements);
  const apps = new Map<string, { app: RoleApp; url: string }>();
  const contexts = new Contexts(platform, config);
  // The last window of authentication events is summarised before the platform closes.
  const closers: Array<() => Promise<void>> = [() => authenticationEvents(platform).stop()];
  try {
    // Before the bridge builds its queries from the configuration.
    if (development.trustDemoCredentialIssuer)
      platform.developmentDefaults.push(await trustDemoCredentialIssuer(platform, config));
    if (development.startIdentityProvider) {
      const idp = await startDevelopmentIdentityProvider(
        config,
        options.ephemeralPorts ? 0 : config.server.ports.devIdp,
      );
      closers.push(() => idp.close());
      platform.logger.info({ role: 'dev-idp', url: idp.issuer }, 'listening');
    }
    for (const role of roles) {
      for (const listener of ROLES[role].listeners(config)) {
        // A role listener faces the gateway: /health only; the rest is on the management listener (issue 13 §3).
        const app = await createRoleApp(platform, { role: listener.name, operational: 'health', ...listener.app });
        await listener.register(app, platform, contexts);
        const url = await app.listen({ host: config.server.host, port: options.ephemeralPorts ? 0 : listener.port });
        apps.set(listener.name, { app, url });
        platform.logger.info({ role: listener.name, url }, 'listening');
      }
    }
    const management = await startManagementListener(platform, config, options.ephemeralPorts === true);
    apps.set('management', management);
    if (development.startDemoRelyingParty) {
      const { startDemoRelyingParty } = await import('@tessera/demo-rp');
      const rp = await startDemoRelyingParty({
        port: options.ephemeralPorts ? 0 : config.server.ports.demoRp,
        tokenServiceUrl: config.tokenService.issuer,
        portalUrl: config.portal.publicUrl,
        clientId: DEMO_RP.clientId,
        clientSecret: DEMO_RP.secret,
        ...(options.ephemeralPorts ? {} : { redirectUri: demoRpRedirectUri(config) }),
      });
      closers.push(() => rp.close());
      platform.logger.info({ role: 'demo-rp', url: rp.url }, 'listening');
    }
    if (config.jobs.enabled) {
      platform.jobs.start();
      // Outbound webhook delivery runs in every process; replicas never claim the same delivery.
      const outbound = outboundOf(platform, config);
      outbound.start();
      closers.push(() => outbound.stop());
      // Audit forwarding to SIEM streams runs in every process too; replicas never write the same event twice.
      const forwarding = forwardingOf(platform, config);
      forwarding.start();
      closers.push(() => forwarding.stop());
    }
    announceDevelopmentDefaults(platform, options.banner ?? false);
  } catch (error) {
    await Promise.allSettled([...apps.values()].map(({ app }) => app.close()));
    await Promise.allSettled(closers.map((c) => c()));
    await platform.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    platform,
    apps,
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...apps.values()].map(({ app }) => app.close()));
        await Promise.allSettled(closers.map((c) => c()));
        await platform.close();
      })();
      return closing;
    },
  };
}
