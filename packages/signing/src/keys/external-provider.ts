import type { KeyProvider, ProviderKey } from './key-provider.js';

export const EXTERNAL_PROVIDER_ID = 'external';

/**
 * The external provider: certificates whose private key is outside the service (an external HSM or a remote
 * signer). It holds no key and creates no signature; its key entries serve the split flow (determine → digest →
 * sign elsewhere → merge, 002 §1).
 */
export class ExternalKeyProvider implements KeyProvider {
  readonly id = EXTERNAL_PROVIDER_ID;
  readonly kind = 'external' as const;
  readonly signs = false;

  servesTenant(): boolean {
    return true;
  }
  async findKey(): Promise<ProviderKey | null> {
    return null;
  }
  async findKeyByPublicKey(): Promise<ProviderKey | null> {
    return null;
  }
  refusal(): string {
    return 'its keys are outside the service (sign the digest externally and merge)';
  }
  async sign(): Promise<Buffer> {
    throw new Error('the external provider does not sign');
  }
}
