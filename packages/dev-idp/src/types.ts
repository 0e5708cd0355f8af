import type Provider from 'oidc-provider';

/** The claims a demo person carries; the service claim is named by `serviceClaim` (default `service_id`). */
export interface DemoUserClaims {
  eduperson_principal_name: string;
  email: string;
  email_verified: boolean;
  given_name: string;
  family_name: string;
  name: string;
  [claim: string]: string | boolean;
}

export interface DemoUser {
  username: string;
  password: string;
  /** Stable subject identifier of the person at this provider. */
  sub: string;
  claims: DemoUserClaims;
}

export interface DevClient {
  clientId: string;
  /** Required unless `tokenEndpointAuthMethod` is `none`. */
  clientSecret?: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** Default `['authorization_code']`. */
  grantTypes?: string[];
  /** Default `client_secret_basic`. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

export interface DevIdentityProviderOptions {
  /** 0 picks a free port; the CLI uses 8300. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `http://127.0.0.1:<port>` (or the host, when it is a concrete address). */
  issuer?: string;
  clients: DevClient[];
  /** Default: the three demo people of `defaultDemoUsers(serviceClaim)`. */
  users?: DemoUser[];
  /** Name of the claim, and of the scope that releases it, carrying the person's service identifier. */
  serviceClaim?: string;
  /** Cookie signing keys; default: random per start. */
  cookieKeys?: string[];
  /** Lifetime of access and ID tokens; default 600. */
  ttlSeconds?: number;
}

/**
 * Failure modes for tests of the relying parties' error handling. Each applies to the token endpoint, except
 * `down`, which stops listening. The ID token modes re-sign the issued ID token after a change.
 */
export type Behaviour =
  | 'normal'
  | 'token_error'
  | 'slow'
  | 'down'
  | 'wrong_nonce'
  | 'wrong_audience'
  | 'wrong_issuer'
  | 'expired_id_token'
  | 'bad_signature';

export interface BehaviourOptions {
  /** Delay of the `slow` token endpoint; default 10 seconds. */
  delaySeconds?: number;
}

export interface DevIdentityProvider {
  issuer: string;
  /** Where the server listens (equals `issuer` unless an issuer was given). */
  url: string;
  port: number;
  provider: Provider;
  users: DemoUser[];
  /** The fixed `acr` of every ID token. */
  acr: string;
  behaviour(): Behaviour;
  /** `down` stops listening; any other value listens again if needed. */
  setBehaviour(behaviour: Behaviour, options?: BehaviourOptions): Promise<void>;
  /** Listens again on the same host and port, and goes back to `normal` if it was `down`. */
  restart(): Promise<void>;
  close(): Promise<void>;
}
