import { readStdinLine } from '@tessera/platform/cli';
import { hashClientSecret } from '../clients/client-secret.js';

/**
 * `npm run client-secret -- hash`: reads a client secret from standard input (one line, so that it stays out of the
 * shell history and the process list) and prints the value for `tokenService.clients.<id>.client-secret`:
 * `{argon2}$argon2id$...`. Production accepts only this form (docs/deployment.md).
 */
const USAGE = 'usage: npm run client-secret -- hash   (the secret is read from standard input)\n';

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length !== 1 || argv[0] !== 'hash') {
    process.stderr.write(USAGE);
    return argv[0] === '--help' || argv[0] === '-h' ? 0 : 2;
  }
  try {
    process.stdout.write(`${await hashClientSecret(await readStdinLine())}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
