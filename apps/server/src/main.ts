import { ConfigError, RoleNames } from '@tessera/platform';
import { loadServerConfig } from './config.js';
import { parseArgs } from './cli/args.js';
import type { startTelemetry as StartTelemetry } from './telemetry.js';

/**
 * The composition root's command line: `start` (default) runs the configured roles, `migrate` applies the
 * migrations and exits, `audit-verify` checks every tenant's audit chain and exits non-zero if one is broken,
 * `identity-keys` rotates a tenant's identity keys, `request-signing csr` prints a certificate request for the bridge,
 * `signing-keys list|rotate` lists and rotates signing keys.
 */
async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const overrides: Record<string, unknown> = {};
  if (args.roles) overrides.roles = args.roles;
  const config = loadServerConfig({ ...(args.configFile ? { file: args.configFile } : {}), overrides });

  if (args.command === 'migrate') {
    const { runMigrate } = await import('./cli/migrate.js');
    return runMigrate(config);
  }
  if (args.command === 'identity-keys') {
    const { runIdentityKeysCommand } = await import('./cli/identity-keys.js');
    return runIdentityKeysCommand(config, args.action, args.tenants);
  }
  if (args.command === 'request-signing') {
    const { runRequestSigningCommand } = await import('./cli/request-signing.js');
    return runRequestSigningCommand(config, args.action, {
      ...(args.subject !== undefined ? { subject: args.subject } : {}),
      ...(args.altNames ? { altNames: args.altNames } : {}),
      ...(args.tenants ? { tenants: args.tenants } : {}),
    });
  }
  if (args.command === 'signing-keys') {
    const { runSigningKeysCommand } = await import('./cli/signing-keys.js');
    return runSigningKeysCommand(config, args.action, {
      ...(args.alias !== undefined ? { alias: args.alias } : {}),
      ...(args.retainSeconds !== undefined ? { retainSeconds: args.retainSeconds } : {}),
      ...(args.tenants ? { tenants: args.tenants } : {}),
    });
  }
  if (args.command === 'audit-verify') {
    const { runAuditVerifyCommand } = await import('./cli/audit-verify.js');
    return runAuditVerifyCommand(config, args.tenants);
  }

  const { serviceNameFor, startServer } = await import('./start.js');
  const telemetry = await startTelemetry(config, serviceNameFor(config.roles));
  const server = await startServer(config, { banner: true });
  const stop = async (signal: string) => {
    server.platform.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), config.server.shutdownGraceSeconds * 1000);
    timer.unref();
    await server.close();
    await telemetry?.shutdown();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return -1;
}

async function startTelemetry(...args: Parameters<typeof StartTelemetry>) {
  const { startTelemetry: start } = await import('./telemetry.js');
  return start(...args);
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(
        `Configuration error: ${error.message}\nRoles: ${RoleNames.join(', ')}. See docs/configuration.md.\n`,
      );
    } else {
      process.stderr.write(`Start failed: ${(error as Error).message}\n`);
    }
    process.exit(1);
  },
);
