import { setTimeout as sleep } from 'node:timers/promises';
import type { CliIo } from './cli-io.js';
import { describeOutcome } from './describe-outcome.js';
import { openDemoWallet } from './open-demo-wallet.js';
import type { CliArguments } from './parse-cli-arguments.js';

/** Answers the link as the chosen persona, serving the status lists meanwhile; 0 when the verifier accepted. */
export async function runLogin(args: CliArguments, link: string, io: CliIo): Promise<number> {
  const { issuer, wallet } = await openDemoWallet(args, io);
  try {
    await issuer.statusListServer({ port: args.statusPort });
  } catch (error) {
    io.err(
      `Could not serve the status lists on 127.0.0.1:${args.statusPort} (${(error as Error).message}). Is another wallet run active?`,
    );
    return 1;
  }
  try {
    const result = await wallet.respond(link, {
      ...(args.format ? { formats: [args.format] } : {}),
      ...(args.credentialId !== undefined ? { credentialId: args.credentialId } : {}),
    });
    for (const line of describeOutcome(result)) io.out(line);
    if (args.lingerSeconds > 0) {
      io.out(`Serving the status lists for ${args.lingerSeconds} more seconds.`);
      await sleep(args.lingerSeconds * 1000);
    }
    return result.status >= 200 && result.status < 300 ? 0 : 1;
  } finally {
    // Stops the status list server.
    await issuer.close();
  }
}
