import { listSigningKeysCommand, rotateSigningKeyCommand } from '@tessera/platform';
import type { ServerConfig } from '../config.js';
import { runAsOperator } from './operator.js';

export const SIGNING_KEYS_USAGE =
  'usage: npm run signing-keys -- list\n' +
  '       npm run signing-keys -- rotate --alias <alias> [--retain-seconds <n>] [--tenant <id> (of the audit event)]\n';

/**
 * `npm run signing-keys -- list | rotate`: the signing keys of the key manager, and their rotation (docs/deployment.md
 * "Key rotation"). Run with the deployment's configuration (database and master key). The bridge's request-signing
 * key under an x509 prefix is not rotated here: its certificate names the key, so a new key goes under a new alias
 * with its own certificate (`bridge.requestSigning.keyAlias`), and the switch is a configuration change.
 */
export async function runSigningKeysCommand(
  config: ServerConfig,
  action: string | undefined,
  options: { alias?: string; retainSeconds?: string; tenants?: string[] },
): Promise<number> {
  const tenantId = options.tenants?.[0] ?? config.tenancy.defaultTenant;
  if ((action !== 'list' && action !== 'rotate') || !tenantId || (action === 'rotate' && !options.alias)) {
    process.stderr.write(SIGNING_KEYS_USAGE);
    return 2;
  }
  const { requestSigning, clientIdPrefix } = config.bridge;
  if (
    action === 'rotate' &&
    options.alias === requestSigning.keyAlias &&
    clientIdPrefix !== 'decentralized_identifier'
  ) {
    process.stderr.write(
      `${options.alias} is the bridge's request-signing key, named by its certificate: rotating it would stop wallet ` +
        'requests until a new certificate is configured. Set bridge.requestSigning.keyAlias to a new alias, run ' +
        '`npm run request-signing -- csr` for it, and deploy the new alias with its certificate chain.\n',
    );
    return 2;
  }
  if (options.retainSeconds !== undefined && !/^\d+$/.test(options.retainSeconds)) {
    process.stderr.write(`--retain-seconds must be a whole number of seconds\n${SIGNING_KEYS_USAGE}`);
    return 2;
  }
  const retainSeconds = options.retainSeconds === undefined ? undefined : Number(options.retainSeconds);
  return runAsOperator(config, tenantId, async (platform, ctx) => {
    const output =
      action === 'list'
        ? await platform.commands.execute(listSigningKeysCommand(platform.keys), ctx, {})
        : await platform.commands.execute(rotateSigningKeyCommand(platform.keys), ctx, {
            alias: options.alias!,
            ...(retainSeconds === undefined ? {} : { retainSeconds }),
          });
    return JSON.stringify(output, null, 2);
  });
}
