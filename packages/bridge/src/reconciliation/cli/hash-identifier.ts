import { parseArgs } from 'node:util';
import { readStdinLine } from '@tessera/platform/cli';
import { computeIdentifierHash } from '../domain/identifier-hash.js';

/**
 * `npm run reconciliation-hash -- --key <base64url key> --type SERVICE_ID --value <identifier>`
 *
 * Computes the identifierHash of POST /api/external/v1/reconciliation/lookup (000 §4.3) as a client must: base64url,
 * without padding, of HMAC-SHA256 under the tenant's shared key (exported with identity.keys.export-shared-hmac-key)
 * of the identifier's UTF-8 bytes, unnormalised. Prints the request body, `{"identifierHash", "identifierType"}`.
 * Without `--value` the identifier is read from standard input (one line), so that it stays out of the shell
 * history and the process list. Nothing is sent anywhere.
 */
const TYPES = ['KEY', 'SERVICE_ID', 'EPPN'];
const USAGE =
  'usage: reconciliation-hash --key <base64url key> --type KEY|SERVICE_ID|EPPN [--value <identifier>]\n' +
  '       (without --value the identifier is read from standard input)\n';

/**
 * `--key <v>` → `--key=<v>`: a base64url key (or an identifier) may begin with `-`, which parseArgs would otherwise
 * take for an option.
 */
function joinValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if ((arg === '--key' || arg === '--type' || arg === '--value') && i + 1 < argv.length)
      out.push(`${arg}=${argv[++i]}`);
    else out.push(arg);
  }
  return out;
}

async function main(): Promise<number> {
  let values: { key?: string; type?: string; value?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: joinValues(process.argv.slice(2)),
      options: {
        key: { type: 'string' },
        type: { type: 'string' },
        value: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.key || !values.type || !TYPES.includes(values.type)) {
    process.stderr.write(USAGE);
    return 2;
  }
  const identifier = values.value ?? (await readStdinLine());
  try {
    const identifierHash = computeIdentifierHash(values.key, identifier);
    process.stdout.write(`${JSON.stringify({ identifierHash, identifierType: values.type })}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
}

process.exitCode = await main();
