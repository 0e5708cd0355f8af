import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isCredentialFormat, type CredentialFormat } from '../common/credential-format.js';
import { DEFAULT_WALLET_DATA_DIR, DEVELOPMENT_STATUS_PORT } from '../development/demo-constants.js';

export type CliCommand =
  | { kind: 'login'; link: string }
  | { kind: 'receive'; offer: string }
  | { kind: 'credentials' }
  | { kind: 'issuer-info'; json: boolean }
  | { kind: 'status'; change: 'revoke' | 'suspend' | 'reinstate' }
  | { kind: 'help' };

export interface CliArguments {
  command: CliCommand;
  user: number;
  format: CredentialFormat | undefined;
  dataDir: string;
  statusPort: number;
  trustAnchorFiles: string[];
  lingerSeconds: number;
  /** `--pin`: the transaction code of an offer. */
  pin: string | undefined;
  /** `--credential`: answer a link with this held credential only. */
  credentialId: string | undefined;
}

export class UsageError extends Error {}

export const USAGE = `Usage:
  npm run wallet -- '<openid4vp://...link>' [--user <1|2|3>] [--format dc+sd-jwt|jwt_vc_json] [--credential <id>]
                   [--trust-anchor <ca.pem>]... [--linger <seconds>] [--data-dir <dir>] [--status-port <port>]
  npm run wallet -- receive '<openid-credential-offer://...>' [--pin <code>] [--user <n>] [--data-dir <dir>]
  npm run wallet -- credentials [--user <n>] [--data-dir <dir>]
  npm run wallet -- issuer-info [--json] [--data-dir <dir>]
  npm run wallet -- revoke|suspend|reinstate [--user <n>] [--format <format>] [--data-dir <dir>]

Data directory: --data-dir, else $DATA_DIR/test-wallet when DATA_DIR is set (as for the server), else
./data/test-wallet. The development issuer there is created by the first of the server (npm start) and the
wallet to need it. The first run of each persona (--user, default 1: alice) gives it its own holder key and
issues it one credential of each format with its claims (the embedded provider's user of the same number).
While it answers a link it serves the status lists on 127.0.0.1:8500.

receive: takes a credential offer (openid-credential-offer://, a credential_offer_uri offer, or an https offer
link) from an OpenID4VCI issuer through the pre-authorized code flow (--pin: the transaction code the issuer
showed beside the offer), binds the credential to the persona's wallet key, stores it beside the persona's
own credentials and prints it (format, type, claims, status entry, id).

Which credential answers a link: the first held credential that the verifier's DCQL query accepts, received
credentials first (the most recently received first), then the persona's own. --credential <id> answers
with that credential only (ids: npm run wallet -- credentials); --format only with credentials of that format.
revoke|suspend|reinstate change the persona's own credentials at the development issuer; a received
credential is revoked at its issuer (its status entry is printed by receive and credentials).`;

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return parsed;
}

/** The data directory the server's development profile uses for the test wallet: `<DATA_DIR>/test-wallet`. */
export function defaultDataDir(env: Record<string, string | undefined>): string {
  const base = env.DATA_DIR?.replace(/\/$/, '');
  return base ? join(base, 'test-wallet') : DEFAULT_WALLET_DATA_DIR;
}

export function parseCliArguments(argv: string[], env: Record<string, string | undefined> = process.env): CliArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: 'string' },
        format: { type: 'string' },
        'data-dir': { type: 'string' },
        'status-port': { type: 'string' },
        'trust-anchor': { type: 'string', multiple: true },
        linger: { type: 'string' },
        pin: { type: 'string' },
        credential: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  const operand = first === 'receive' ? rest.shift() : undefined;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the link)`);
  let command: CliCommand;
  if (values.help || first === undefined || first === 'help') command = { kind: 'help' };
  else if (first === 'receive') {
    if (operand === undefined)
      throw new UsageError("receive needs the offer: receive '<openid-credential-offer://...>'");
    command = { kind: 'receive', offer: operand };
  } else if (first === 'credentials') command = { kind: 'credentials' };
  else if (first === 'issuer-info') command = { kind: 'issuer-info', json: values.json ?? false };
  else if (first === 'revoke' || first === 'suspend' || first === 'reinstate')
    command = { kind: 'status', change: first };
  // An offer link needs no `receive`: its scheme says what it is (OpenID4VCI 1.0 §4.1).
  else if (first.startsWith('openid-credential-offer:')) command = { kind: 'receive', offer: first };
  else if (first.includes('://')) command = { kind: 'login', link: first };
  else throw new UsageError(`unknown command '${first}'`);

  if (values.format !== undefined && !isCredentialFormat(values.format))
    throw new UsageError('--format must be dc+sd-jwt or jwt_vc_json');
  return {
    command,
    user: integer('user', values.user, 1),
    format: values.format as CredentialFormat | undefined,
    dataDir: values['data-dir'] ?? defaultDataDir(env),
    statusPort: integer('status-port', values['status-port'], DEVELOPMENT_STATUS_PORT),
    trustAnchorFiles: values['trust-anchor'] ?? [],
    lingerSeconds: integer('linger', values.linger, 0),
    pin: values.pin,
    credentialId: values.credential,
  };
}
