import { defineCommand, type Command } from '../../commands/index.js';
import type { KeyInfo, KeyManager } from '../key-manager.js';

export const LIST_SIGNING_KEYS = 'platform.keys.list-signing-keys';

/**
 * Every signing key version the key manager holds: alias, version, kid, algorithm, state and how long a retired one
 * stays published. Public facts only; private material never leaves the provider. Platform administrators only.
 */
export function listSigningKeysCommand(keys: KeyManager): Command<Record<string, never>, KeyInfo[]> {
  return defineCommand({
    id: LIST_SIGNING_KEYS,
    access: 'admin',
    run: () => keys.list(),
  });
}
