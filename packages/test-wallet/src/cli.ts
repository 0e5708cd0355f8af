// The test wallet's command line: `tsx packages/test-wallet/src/cli.ts '<openid4vp://...>'` (see README.md).
import { processIo } from './cli/cli-io.js';
import { runCli } from './cli/run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), processIo);
