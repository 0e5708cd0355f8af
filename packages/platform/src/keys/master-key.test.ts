import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/load-config.js';
import { GENERATED_MASTER_KEY_FILE, generateMasterKeyText, resolveMasterKey } from './master-key.js';

const directories: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-master-key-'));
  directories.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of directories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveMasterKey', () => {
  it('takes the configured value (base64 or base64url of 32 bytes)', () => {
    const bytes = randomBytes(32);
    const fromBase64 = resolveMasterKey({
      masterKey: bytes.toString('base64'),
      generateIn: scratch(),
      allowGenerate: false,
    });
    expect(fromBase64).toEqual({ key: bytes, source: 'environment' });
    const fromBase64url = resolveMasterKey({
      masterKey: ` ${bytes.toString('base64url')}\n`,
      generateIn: scratch(),
      allowGenerate: false,
    });
    expect(fromBase64url.key.equals(bytes)).toBe(true);
  });

  it('prefers the value over the file', () => {
    const dir = scratch();
    const value = randomBytes(32);
    const file = join(dir, 'key');
    writeFileSync(file, randomBytes(32).toString('base64'));
    expect(
      resolveMasterKey({
        masterKey: value.toString('base64'),
        masterKeyFile: file,
        generateIn: dir,
        allowGenerate: true,
      }).key.equals(value),
    ).toBe(true);
  });

  it.each([
    ['too short', randomBytes(31).toString('base64')],
    ['too long', randomBytes(33).toString('base64')],
    ['not base64', '!'.repeat(44)],
    ['hex', randomBytes(32).toString('hex')],
  ])('refuses a value that is %s, naming keys.masterKey without repeating the value', (_, value) => {
    const error = configError(() => resolveMasterKey({ masterKey: value, generateIn: scratch(), allowGenerate: true }));
    expect(error.key).toBe('keys.masterKey');
    expect(error.message).not.toContain(value);
  });

  it('reads the configured file, tolerating a trailing newline', () => {
    const dir = scratch();
    const bytes = randomBytes(32);
    const file = join(dir, 'master');
    writeFileSync(file, `${bytes.toString('base64')}\n`);
    expect(resolveMasterKey({ masterKeyFile: file, generateIn: dir, allowGenerate: false })).toEqual({
      key: bytes,
      source: 'file',
    });
  });

  it('refuses a bad or missing file, naming keys.masterKeyFile', () => {
    const dir = scratch();
    const bad = join(dir, 'bad');
    const content = randomBytes(16).toString('base64');
    writeFileSync(bad, content);
    const badError = configError(() => resolveMasterKey({ masterKeyFile: bad, generateIn: dir, allowGenerate: true }));
    expect(badError.key).toBe('keys.masterKeyFile');
    expect(badError.message).not.toContain(content);
    const missing = configError(() =>
      resolveMasterKey({ masterKeyFile: join(dir, 'absent'), generateIn: dir, allowGenerate: true }),
    );
    expect(missing.key).toBe('keys.masterKeyFile');
    // A configured file is never replaced by a generated key.
    expect(existsSync(join(dir, GENERATED_MASTER_KEY_FILE))).toBe(false);
  });

  it('generates a development key once (mode 0600, directories created) and reuses it', () => {
    const dir = join(scratch(), 'nested', 'data');
    const first = resolveMasterKey({ generateIn: dir, allowGenerate: true });
    expect(first.source).toBe('generated');
    expect(first.key).toHaveLength(32);
    const file = join(dir, GENERATED_MASTER_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = resolveMasterKey({ generateIn: dir, allowGenerate: true });
    expect(second).toEqual({ key: first.key, source: 'generated' });
  });

  it('refuses a corrupt generated file instead of replacing it (that would orphan every stored key)', () => {
    const dir = scratch();
    writeFileSync(join(dir, GENERATED_MASTER_KEY_FILE), 'garbage');
    expect(configError(() => resolveMasterKey({ generateIn: dir, allowGenerate: true })).key).toBe(
      'keys.masterKeyFile',
    );
  });

  it('refuses to run without a configured key in production', () => {
    const dir = scratch();
    const error = configError(() => resolveMasterKey({ generateIn: dir, allowGenerate: false }));
    expect(error.key).toBe('keys.masterKey');
    expect(existsSync(join(dir, GENERATED_MASTER_KEY_FILE))).toBe(false);
  });

  it('produces keys in the configured format', () => {
    const text = generateMasterKeyText();
    expect(
      resolveMasterKey({ masterKey: text, generateIn: scratch(), allowGenerate: false }).key.toString('base64'),
    ).toBe(text);
  });
});
