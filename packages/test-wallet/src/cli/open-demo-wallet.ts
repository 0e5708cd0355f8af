import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CREDENTIAL_FORMATS } from '../common/credential-format.js';
import { findDemoPersona, type DemoPersona } from '../development/demo-personas.js';
import { loadOrCreateDevelopmentIssuer } from '../development/load-development-issuer.js';
import { issueCredentialToWallet } from '../issue-credential-to-wallet.js';
import type { TestIssuer } from '../issuer/create-test-issuer.js';
import { createTestWallet, type TestWallet } from '../wallet/create-test-wallet.js';
import type { CliArguments } from './parse-cli-arguments.js';
import { UsageError } from './parse-cli-arguments.js';
import type { CliIo } from './cli-io.js';

export interface DemoWallet {
  issuer: TestIssuer;
  wallet: TestWallet;
  persona: DemoPersona;
  holderDir: string;
}

/**
 * Opens the development issuer and the persona's wallet from the data directory; on the persona's first run the
 * issuer issues it one credential of each format with the persona's claims.
 */
export async function openDemoWallet(args: CliArguments, io: CliIo): Promise<DemoWallet> {
  const persona = findDemoPersona(args.user);
  if (!persona) throw new UsageError(`--user must be 1, 2 or 3`);
  const issuer = await loadOrCreateDevelopmentIssuer(args.dataDir, {
    statusBaseUrl: `http://127.0.0.1:${args.statusPort}`,
  });
  const trustAnchors = await Promise.all(args.trustAnchorFiles.map((file) => readFile(file, 'utf8')));
  const holderDir = join(args.dataDir, 'holders', `user-${persona.number}`);
  const wallet = await createTestWallet({ dataDir: holderDir, trustAnchors });
  if ((await wallet.credentials()).length === 0) {
    for (const format of CREDENTIAL_FORMATS) {
      const credential = await issueCredentialToWallet(issuer, wallet, { format, claims: persona.claims });
      io.out(`Issued a ${format} credential to ${persona.claims.given_name} (status index ${credential.statusIndex}).`);
    }
  }
  return { issuer, wallet, persona, holderDir };
}
