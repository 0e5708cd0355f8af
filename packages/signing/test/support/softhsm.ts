import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SOFTHSM_LIBRARY = '/usr/lib/softhsm/libsofthsm2.so';

/**
 * A SoftHSM2 token in a temporary directory: SOFTHSM2_CONF points at its own configuration, so tests never touch
 * the machine's tokens. Set before the PKCS #11 module is first opened.
 */
export async function startSoftHsm(
  label = 'tessera-test',
  pin = '1234',
): Promise<{ label: string; pin: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-softhsm-'));
  await mkdir(join(dir, 'tokens'));
  const conf = join(dir, 'softhsm2.conf');
  await writeFile(
    conf,
    `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  await run('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '87654321'], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
  });
  return { label, pin, close: () => rm(dir, { recursive: true, force: true }) };
}
