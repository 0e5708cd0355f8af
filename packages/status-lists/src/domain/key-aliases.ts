import { badInput } from './errors.js';

/**
 * The key-manager alias a list is signed with. Without `keyRef`: the tenant's status-list key
 * `status-list:<tenant>` (ES256, created on first use). With a key name: `status-list:<tenant>:<name>`, also
 * created on first use. An alias of the configuration's `extraKeyAliases` (with `{tenant}` replaced) is used as it
 * is. Nothing else: a caller cannot sign a list with another tenant's key or with a key kept for another purpose.
 */
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const defaultKeyAlias = (tenantId: string): string => `status-list:${tenantId}`;

export function keyAliasFor(tenantId: string, keyRef: string | null, extraAliases: readonly string[]): string {
  if (keyRef === null) return defaultKeyAlias(tenantId);
  const extra = extraAliases.map((a) => a.replaceAll('{tenant}', tenantId));
  if (extra.includes(keyRef)) return keyRef;
  if (!KEY_NAME.test(keyRef)) {
    throw badInput(
      'keyRef names a status-list key of this tenant (letters, digits, dot, dash, underscore; at most 64) or a configured key alias.',
      'statusList.keyRef',
    );
  }
  return `${defaultKeyAlias(tenantId)}:${keyRef}`;
}

/** Only the aliases this context creates on first use; a configured extra alias must exist already. */
export const isOwnKeyAlias = (tenantId: string, alias: string): boolean =>
  alias === defaultKeyAlias(tenantId) || alias.startsWith(`${defaultKeyAlias(tenantId)}:`);
