import { randomBytes } from 'node:crypto';
import { ManualClock } from '@tessera/platform';
import type { TestDatabaseKind, TestPlatform } from '@tessera/platform/testing';
import type { TokenServiceConfig } from '../../../src/index.js';
import { issueAuthorizationCode } from '../../../src/commands/issue-authorization-code.js';
import { challengeOf } from '../../support/codes.js';
import {
  RP_REDIRECT,
  startTokenService,
  testTokenServiceConfig,
  type DevIdp,
  type TokenServiceHarness,
} from '../../support/harness.js';

/** A public client allowed to refresh: RFC 9449 §5 binds its refresh tokens to its DPoP key. */
export const DPOP_PUBLIC = 'dpop-public';
export const DPOP_PUBLIC_REDIRECT = 'http://127.0.0.1/dpop-callback';

export interface DpopHarness extends TokenServiceHarness {
  /** Set with `manualClock`: the token service's clock, moved by hand. */
  clock: ManualClock | null;
  tokenEndpoint: string;
  userinfoEndpoint: string;
}

export interface DpopHarnessOptions {
  kind: TestDatabaseKind;
  dpop?: Partial<TokenServiceConfig['dpop']>;
  upstream?: boolean;
  manualClock?: boolean;
  testPlatform?: TestPlatform;
  idp?: DevIdp;
}

/** The test token service with DPoP on (unless `dpop.enabled` says otherwise) and the DPoP public client. */
export async function startDpopTokenService(options: DpopHarnessOptions): Promise<DpopHarness> {
  const base = testTokenServiceConfig();
  // Client entries are defaulted when the registry reads them (client-registry.ts), as from a configuration file.
  const clients = {
    ...base.clients,
    [DPOP_PUBLIC]: {
      'redirect-uris': [DPOP_PUBLIC_REDIRECT],
      'grant-types': ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'offline_access'],
    },
  } as unknown as TokenServiceConfig['clients'];
  const dpop = { enabled: true, nonceRequired: false, iatWindowSeconds: 60, ...options.dpop };
  const h = await startTokenService({
    kind: options.kind,
    upstream: options.upstream ?? false,
    config: { clients, dpop },
    ...(options.testPlatform ? { testPlatform: options.testPlatform } : {}),
    ...(options.idp ? { idp: options.idp } : {}),
  });
  let clock: ManualClock | null = null;
  if (options.manualClock) {
    clock = new ManualClock(new Date());
    h.ctx.clock = clock;
  }
  return { ...h, clock, tokenEndpoint: `${h.issuer}/token`, userinfoEndpoint: `${h.issuer}/userinfo` };
}

export interface MintedCode {
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
}

/**
 * An authorization code as the authorization endpoint issues it after a login (test/support/codes.ts mintCode),
 * optionally bound to a DPoP key by `dpop_jkt` (RFC 9449 §10).
 */
export async function mintDpopCode(
  h: TokenServiceHarness,
  options: { clientId?: string; redirectUri?: string; scope?: string; dpopJkt?: string | null } = {},
): Promise<MintedCode> {
  const clientId = options.clientId ?? DPOP_PUBLIC;
  const redirectUri = options.redirectUri ?? (clientId === DPOP_PUBLIC ? DPOP_PUBLIC_REDIRECT : RP_REDIRECT);
  const verifier = randomBytes(48).toString('base64url');
  const location = await h.platform.db.withTenant('demo', (sql) =>
    issueAuthorizationCode(
      h.ctx,
      'demo',
      sql,
      {
        clientId,
        redirectUri,
        scope: options.scope ?? 'openid profile email offline_access',
        state: 'st',
        nonce: 'n-1',
        codeChallenge: challengeOf(verifier),
        codeChallengeMethod: 'S256',
        dpopJkt: options.dpopJkt ?? null,
      },
      {
        subject: '11111111-2222-4333-8444-555555555555',
        acr: 'urn:test:acr',
        amr: ['federation'],
        authTime: new Date(),
        claims: { email: 'alice@demo.example', given_name: 'Alice' },
      },
    ),
  );
  return { code: new URL(location).searchParams.get('code')!, verifier, redirectUri, clientId };
}
