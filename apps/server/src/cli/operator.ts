import { randomUUID } from 'node:crypto';
import { createPlatform, isAppError, type CommandContext, type Platform, type Principal } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import { allMigrations } from '../migrations.js';

/** The operator at the command line: a platform administrator, recorded as such in the audit events. */
export const cliOperator = (config: ServerConfig): Principal => ({
  id: 'cli-operator',
  kind: 'service',
  tenantId: null,
  roles: [config.auth.platformAdminRole],
  scopes: [],
  clientId: null,
  issuer: null,
});

/**
 * Runs one operator command against the deployment's platform (its database and master key, logs at warn): `fn`
 * gets the platform and a command context of the operator in `tenantId` (where the audit event goes) and answers
 * what to print on stdout. An AppError (a refusal of the input) is printed on stderr with exit code 2.
 */
export async function runAsOperator(
  config: ServerConfig,
  tenantId: string,
  fn: (platform: Platform, ctx: CommandContext) => Promise<string>,
): Promise<number> {
  const platform = await createPlatform({ ...config, logging: { level: 'warn' } }, { migrations: allMigrations });
  try {
    const ctx = {
      tenantId,
      principal: cliOperator(config),
      correlationId: randomUUID(),
      trace: null,
      log: platform.logger,
    };
    const out = await fn(platform, ctx);
    process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    return 0;
  } catch (error) {
    if (!isAppError(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  } finally {
    await platform.close();
  }
}
