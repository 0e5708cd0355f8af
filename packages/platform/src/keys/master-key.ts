import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/load-config.js';

/** AES-256-GCM takes a 256-bit key (NIST SP 800-38D); the master key is exactly that. */
export const MASTER_KEY_BYTES = 32;

/** Name of the development master key file, generated beside the embedded database's data directory. */
export const GENERATED_MASTER_KEY_FILE = 'master.key';

export interface ResolveMasterKeyOptions {
  /** Base64 of 32 bytes (`keys.masterKey`, `MASTER_KEY`). */
  masterKey?: string | undefined;
  /** A file whose content is base64 of 32 bytes (`keys.masterKeyFile`, `MASTER_KEY_FILE`). */
  masterKeyFile?: string | undefined;
  /** Directory of the generated development key. */
  generateIn: string;
  /** False under the production profile: a generated key is a development default only (issue 2 §2). */
  allowGenerate: boolean;
}

export interface ResolvedMasterKey {
  key: Buffer;
  source: 'environment' | 'file' | 'generated';
}

/**
 * Finds the master key that encrypts private keys at rest: the configured value, else the configured file, else
 * (outside production) a key generated once into `<generateIn>/master.key`. Error messages name the configuration
 * key and never repeat the value.
 */
export function resolveMasterKey(options: ResolveMasterKeyOptions): ResolvedMasterKey {
  if (options.masterKey) {
    return { key: decodeMasterKey(options.masterKey, 'keys.masterKey', 'the value'), source: 'environment' };
  }
  if (options.masterKeyFile) {
    const text = readKeyFile(options.masterKeyFile, 'keys.masterKeyFile');
    return { key: decodeMasterKey(text, 'keys.masterKeyFile', `the file ${options.masterKeyFile}`), source: 'file' };
  }
  if (!options.allowGenerate) {
    throw new ConfigError(
      'keys.masterKey',
      'no master key is configured (set MASTER_KEY or MASTER_KEY_FILE); a generated key is refused under NODE_ENV=production',
    );
  }
  return { key: readOrGenerate(options.generateIn), source: 'generated' };
}

/** A fresh master key in the format the configuration expects. */
export function generateMasterKeyText(): string {
  return randomBytes(MASTER_KEY_BYTES).toString('base64');
}

function readOrGenerate(directory: string): Buffer {
  const file = join(directory, GENERATED_MASTER_KEY_FILE);
  mkdirSync(directory, { recursive: true });
  try {
    // `wx` fails when the file exists, so two processes starting at once never overwrite each other's key.
    writeFileSync(file, `${generateMasterKeyText()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(
        'keys.masterKeyFile',
        `cannot create the development master key file ${file}: ${(error as Error).message}`,
      );
    }
  }
  return decodeMasterKey(readKeyFile(file, 'keys.masterKeyFile'), 'keys.masterKeyFile', `the generated file ${file}`);
}

function readKeyFile(file: string, configKey: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(configKey, `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`);
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/** Accepts base64 or base64url (with surrounding whitespace, e.g. a trailing newline in a file). */
function decodeMasterKey(text: string, configKey: string, what: string): Buffer {
  const trimmed = text.trim();
  const key = BASE64.test(trimmed)
    ? Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64')
    : null;
  if (!key || key.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(configKey, `${what} must be base64 of exactly ${MASTER_KEY_BYTES} bytes`);
  }
  return key;
}
