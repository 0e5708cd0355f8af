import { AppError, UpstreamOidcClient } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import { IdvStateCodec } from './crypto/idv-state.js';
import type { IdvConfig } from './config.js';

/** The fixed callback path of 000 §4.2, on the bridge's public base URL. */
export const IDV_CALLBACK_PATH = '/auth/oid4vp/idv/callback';

/**
 * What the IDV commands stand on: the bridge's services, the state codec and the client of the institutional
 * provider (the platform's UpstreamOidcClient: PKCE S256, state, nonce, ID token verification). The configuration
 * is read at each use, so the client is rebuilt when the provider settings change; discovery is cached by the client.
 */
export class IdvServices {
  readonly states: IdvStateCodec;
  private client: { key: string; client: UpstreamOidcClient } | null = null;

  constructor(readonly bridge: BridgeServices) {
    this.states = new IdvStateCodec(bridge.platform.keys);
  }

  get config(): IdvConfig {
    return this.bridge.config.idv;
  }

  get providerId(): string {
    return this.config.provider.providerId;
  }

  /** 000 §4.2: `${bridge.publicBaseUrl}/auth/oid4vp/idv/callback`, registered at the provider. */
  get redirectUri(): string {
    return `${this.bridge.config.publicBaseUrl}${IDV_CALLBACK_PATH}`;
  }

  /** The wallet claims compared with the institution's (issue 14 §1): configured, else the service claim and eppn. */
  get identifyingClaims(): string[] {
    return this.config.identifyingClaims ?? [this.bridge.serviceClaim, 'eduperson_principal_name'];
  }

  get configured(): boolean {
    const p = this.config.provider;
    return Boolean(p.issuer && p.clientId && p.clientSecret);
  }

  /** The provider's client; 503 when the deployment has not configured one. */
  provider(): UpstreamOidcClient {
    const p = this.config.provider;
    if (!p.issuer || !p.clientId || !p.clientSecret)
      throw new AppError('service_unavailable', 'Identity verification is not configured.', { status: 503 });
    const settings = {
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret: p.clientSecret,
      scopes: [...p.scopes],
      timeoutSeconds: p.timeoutSeconds,
    };
    const key = JSON.stringify(settings);
    if (this.client?.key !== key) this.client = { key, client: new UpstreamOidcClient(settings) };
    return this.client.client;
  }
}
