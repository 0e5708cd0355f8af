import type { CliIo } from './cli-io.js';
import { describeCredential } from './describe-credential.js';
import { openDemoWallet } from './open-demo-wallet.js';
import type { CliArguments } from './parse-cli-arguments.js';

/** Receives the credentials of an offer into the persona's wallet and prints them; 0 when at least one was stored. */
export async function runReceive(args: CliArguments, offer: string, io: CliIo): Promise<number> {
  const { wallet, persona, issuer } = await openDemoWallet(args, io);
  // The development issuer is not needed to receive; its status server is not started here.
  await issuer.close();
  const result = await wallet.receive(offer, args.pin !== undefined ? { txCode: args.pin } : {});
  for (const credential of result.credentials) {
    io.out(
      `Received a ${credential.format} credential for ${persona.claims.given_name} from ${result.credentialIssuer}.`,
    );
    for (const line of describeCredential(credential)) io.out(line);
  }
  for (const warning of result.warnings) io.out(`Note: ${warning}`);
  io.out(
    `A wallet link is now answered with it when the verifier's query accepts it (--credential <id> to choose one).`,
  );
  return 0;
}
