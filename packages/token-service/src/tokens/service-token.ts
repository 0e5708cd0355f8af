import { randomUUID } from 'node:crypto';
import type { Clock } from '@tessera/platform';
import type { TokenSigner } from './token-signer.js';

const LIFETIME_SECONDS = 300;

/**
 * Tokens the token service presents to other services of the deployment (the bridge's redeem endpoint): signed
 * by its own key like any client_credentials token, audience and scope of the callee, reused until shortly
 * before they expire.
 */
export class ServiceTokenMinter {
  private readonly cache = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly issuerFor: (tenantId: string) => string,
  ) {}

  async token(tenantId: string, input: { audience: string; scope: string }): Promise<string> {
    const key = `${tenantId}\u0000${input.audience}\u0000${input.scope}`;
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const cached = this.cache.get(key);
    if (cached && cached.until > now + 30) return cached.token;
    const token = await this.signer.sign(
      tenantId,
      {
        iss: this.issuerFor(tenantId),
        sub: 'tessera-token-service',
        client_id: 'tessera-token-service',
        aud: input.audience,
        scope: input.scope,
        tenant_id: tenantId,
        iat: now,
        exp: now + LIFETIME_SECONDS,
        jti: randomUUID(),
      },
      { typ: 'at+jwt' },
    );
    this.cache.set(key, { token, until: now + LIFETIME_SECONDS });
    return token;
  }
}
