import { inPreferenceOrder } from '../wallet/credential-preference.js';
import type { CliIo } from './cli-io.js';
import { describeCredential } from './describe-credential.js';
import { openDemoWallet } from './open-demo-wallet.js';
import type { CliArguments } from './parse-cli-arguments.js';

/** Lists the persona's credentials, received ones first (the order in which a link is answered). */
export async function listCredentials(args: CliArguments, io: CliIo): Promise<number> {
  const { wallet, persona, issuer } = await openDemoWallet(args, io);
  await issuer.close();
  const held = await wallet.credentials();
  io.out(`${persona.claims.given_name} (persona ${persona.number}) holds ${held.length} credentials:`);
  for (const credential of inPreferenceOrder(held)) for (const line of describeCredential(credential)) io.out(line);
  return 0;
}
