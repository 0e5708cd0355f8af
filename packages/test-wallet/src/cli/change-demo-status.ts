import { CREDENTIAL_FORMATS } from '../common/credential-format.js';
import type { CliIo } from './cli-io.js';
import { openDemoWallet } from './open-demo-wallet.js';
import type { CliArguments } from './parse-cli-arguments.js';

/** Revokes, suspends or reinstates the persona's credentials (of one format, or both). */
export async function changeDemoStatus(
  args: CliArguments,
  change: 'revoke' | 'suspend' | 'reinstate',
  io: CliIo,
): Promise<number> {
  const { issuer, wallet, persona } = await openDemoWallet(args, io);
  const formats = args.format ? [args.format] : CREDENTIAL_FORMATS;
  for (const credential of await wallet.credentials()) {
    if (credential.receivedFrom) {
      // Its status entry is at its own issuer, not at the development issuer.
      io.out(
        `${persona.claims.given_name}'s received credential ${credential.id} is left alone: change it at ${credential.receivedFrom.credentialIssuer}'s status list.`,
      );
      continue;
    }
    if (!formats.includes(credential.format) || credential.statusIndex === undefined) continue;
    await issuer[change](credential.format, credential.statusIndex);
    const status = await issuer.statusOf(credential.format, credential.statusIndex);
    io.out(
      `${persona.claims.given_name}'s ${credential.format} credential (index ${credential.statusIndex}) is now ${status}.`,
    );
  }
  return 0;
}
