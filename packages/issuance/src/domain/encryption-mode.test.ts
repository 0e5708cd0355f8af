import { describe, expect, it } from 'vitest';
import { chooseEncryptionMode } from './encryption-mode.js';

describe('encryption mode of a session', () => {
  it('defaults to the tenant envelope encryption', () => {
    expect(chooseEncryptionMode(undefined, 'production')).toBe('TENANT_ENVELOPE');
    expect(chooseEncryptionMode('TENANT_ENVELOPE', 'development')).toBe('TENANT_ENVELOPE');
  });
  it('allows NONE outside production only', () => {
    expect(chooseEncryptionMode('NONE', 'test')).toBe('NONE');
    expect(() => chooseEncryptionMode('NONE', 'production')).toThrow(/refused in production/);
  });
});
