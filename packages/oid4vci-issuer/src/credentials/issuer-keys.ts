import type { JWK } from 'jose';
import { signJwt, type KeyManager } from '@tessera/platform';

/**
 * The tenant's credential signing key (ES256, HAIP 1.0 §5) in the key manager, alias `oid4vci-issuer.<tenant>`,
 * created on first use. Its public keys are published in the JWT VC Issuer Metadata (`/.well-known/jwt-vc-issuer`
 * under the credential issuer, SD-JWT VC §5) and the `kid` of each credential names the key there.
 */
export const issuerKeyAlias = (tenantId: string) => `oid4vci-issuer.${tenantId}`;

export class IssuerKeys {
  private readonly ensured = new Map<string, Promise<unknown>>();

  constructor(private readonly keys: KeyManager) {}

  private ensure(tenantId: string): Promise<unknown> {
    let done = this.ensured.get(tenantId);
    if (!done) {
      done = this.keys.ensure(issuerKeyAlias(tenantId), 'ES256');
      done.catch(() => this.ensured.delete(tenantId));
      this.ensured.set(tenantId, done);
    }
    return done;
  }

  async publicJwk(tenantId: string): Promise<JWK> {
    await this.ensure(tenantId);
    return this.keys.publicJwk(issuerKeyAlias(tenantId));
  }

  async published(tenantId: string): Promise<JWK[]> {
    await this.ensure(tenantId);
    return this.keys.publishedJwks(issuerKeyAlias(tenantId));
  }

  /** Raw ES256 signature (JWS form) over `data` with the active key; its kid. */
  async sign(tenantId: string, data: Uint8Array): Promise<{ kid: string; signature: Uint8Array }> {
    await this.ensure(tenantId);
    return this.keys.sign(issuerKeyAlias(tenantId), data);
  }

  async signJwt(tenantId: string, payload: Record<string, unknown>, header: Record<string, unknown>): Promise<string> {
    await this.ensure(tenantId);
    return signJwt(this.keys, issuerKeyAlias(tenantId), payload, header);
  }
}
