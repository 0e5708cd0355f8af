import { invalidField } from './errors.js';

/**
 * How a session's attribute bag and connector field values are kept at rest (001 §2.2 "an encryption mode"; the
 * field is `encryption_mode`):
 * - TENANT_ENVELOPE (default): the platform's envelope encryption under a key-encryption key of the tenant.
 * - NONE: clear JSON; for development and tests only, refused under the production profile.
 */
export const ENCRYPTION_MODES = ['TENANT_ENVELOPE', 'NONE'] as const;
export type EncryptionMode = (typeof ENCRYPTION_MODES)[number];

export function chooseEncryptionMode(requested: EncryptionMode | undefined, profile: string): EncryptionMode {
  const mode = requested ?? 'TENANT_ENVELOPE';
  if (mode === 'NONE' && profile === 'production')
    throw invalidField('encryption_mode', 'Encryption mode NONE is refused in production.');
  return mode;
}
