import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { UserAgent } from '../support/user-agent.js';
import { runDpopClient } from './client-example.js';
import { DPOP_PUBLIC, DPOP_PUBLIC_REDIRECT, startDpopTokenService, type DpopHarness } from './support/dpop-harness.js';

const EXAMPLE = new URL('./client-example.ts', import.meta.url);
const DOC = new URL('../../../../docs/dpop.md', import.meta.url);

/**
 * docs/dpop.md shows client-example.ts verbatim, and this test runs that file against the token service with
 * DPoP on and nonces required, the login done at the upstream provider as a person would: so the documented
 * example cannot stop working without a test failing.
 */
describe('the client example of docs/dpop.md', () => {
  let h: DpopHarness;

  beforeAll(async () => {
    h = await startDpopTokenService({ kind: 'pglite', upstream: true, dpop: { nonceRequired: true } });
  });
  afterAll(async () => h?.close());

  it('is shown in the document exactly as tested', () => {
    const source = readFileSync(EXAMPLE, 'utf8');
    expect(readFileSync(DOC, 'utf8')).toContain(`\`\`\`ts\n${source}\`\`\`\n`);
  });

  it('runs authorization code + PKCE + DPoP, userinfo and refresh', async () => {
    const user = h.idp!.users[0]!;
    const result = await runDpopClient({
      issuer: h.issuer,
      clientId: DPOP_PUBLIC,
      redirectUri: DPOP_PUBLIC_REDIRECT,
      allowInsecureRequests: true,
      authorize: async (authorizationUrl) => {
        // The browser: to the token service, on to the upstream login page, the form, and back.
        const ua = new UserAgent();
        const page = await ua.follow(authorizationUrl, DPOP_PUBLIC_REDIRECT);
        const back = await ua.login(
          page as { url: string; response: Response },
          user.username,
          user.password,
          DPOP_PUBLIC_REDIRECT,
        );
        return back.url;
      },
    });
    expect(result.tokens.tokenType).toBe('DPoP');
    expect(result.tokens.dpopNonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decodeJwt(result.tokens.accessToken).cnf).toEqual({ jkt: result.jwkThumbprint });
    expect(result.tokens.idTokenClaims).toMatchObject({ iss: h.issuer, aud: DPOP_PUBLIC });
    expect(result.userinfo).toMatchObject({ sub: result.tokens.idTokenClaims!.sub, email: user.claims.email });
    expect(result.refreshed.tokenType).toBe('DPoP');
    expect(result.refreshed.refreshToken).not.toBe(result.tokens.refreshToken);
    expect(decodeJwt(result.refreshed.accessToken).cnf).toEqual({ jkt: result.jwkThumbprint });
  });
});
