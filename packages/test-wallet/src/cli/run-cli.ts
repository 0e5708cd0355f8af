import { loadOrCreateDevelopmentIssuer } from '../development/load-development-issuer.js';
import { WalletError } from '../wallet/wallet-error.js';
import { changeDemoStatus } from './change-demo-status.js';
import type { CliIo } from './cli-io.js';
import { parseCliArguments, USAGE, UsageError } from './parse-cli-arguments.js';
import { printIssuerInfo } from './print-issuer-info.js';
import { listCredentials } from './list-credentials.js';
import { runLogin } from './run-login.js';
import { runReceive } from './run-receive.js';

/** The test wallet's command line; returns the exit code (0 success, 1 failure, 2 usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let receiving = false;
  try {
    const args = parseCliArguments(argv);
    receiving = args.command.kind === 'receive';
    switch (args.command.kind) {
      case 'help':
        io.out(USAGE);
        return 0;
      case 'issuer-info':
        printIssuerInfo(
          await loadOrCreateDevelopmentIssuer(args.dataDir, { statusBaseUrl: `http://127.0.0.1:${args.statusPort}` }),
          args.command.json,
          io,
        );
        return 0;
      case 'status':
        return await changeDemoStatus(args, args.command.change, io);
      case 'login':
        return await runLogin(args, args.command.link, io);
      case 'receive':
        return await runReceive(args, args.command.offer, io);
      case 'credentials':
        return await listCredentials(args, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof WalletError && receiving) {
      io.err(`The wallet did not receive the credential: ${error.message}`);
      return 1;
    }
    if (error instanceof WalletError) {
      io.err(`The wallet did not answer the request: ${error.message}`);
      if (error.code === 'no_matching_credentials')
        io.err('It told the verifier so (access_denied): the sign-in page shows the refusal.');
      return 1;
    }
    io.err(`Failed: ${(error as Error).message}`);
    return 1;
  }
}
