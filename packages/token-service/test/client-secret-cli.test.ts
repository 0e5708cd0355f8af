import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runTsProcess } from '@tessera/platform/testing';
import { ClientSecretVerifier, parseStoredSecret } from '../src/clients/client-secret.js';

const CLI = fileURLToPath(new URL('../src/cli/hash-client-secret.ts', import.meta.url));

/** Runs `npm run client-secret -- <args>` as its own process, with `input` on standard input. */
const run = (args: string[], input: string) => runTsProcess(CLI, args, { input });

describe('npm run client-secret -- hash', () => {
  it('prints the {argon2} form of the secret read from standard input, which the token service verifies', async () => {
    const { status, stdout, stderr } = await run(['hash'], 'correct horse battery staple\n');
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^\{argon2\}\$argon2id\$[^\n]+\n$/);
    const stored = parseStoredSecret(stdout.trimEnd());
    const verifier = new ClientSecretVerifier(0);
    expect(await verifier.verify(stored, 'correct horse battery staple')).toBe(true);
    expect(await verifier.verify(stored, 'correct horse battery staple\n')).toBe(false);
  });

  it('refuses an empty secret and other arguments with the usage and exit code 2', async () => {
    const empty = await run(['hash'], '\n');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/empty/);
    expect(empty.stdout).toBe('');
    const bad = await run(['hash', 'my-secret'], '');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^usage: npm run client-secret -- hash/);
  });
});
