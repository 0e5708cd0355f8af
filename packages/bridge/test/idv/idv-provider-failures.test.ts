import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import type { Behaviour, DemoUser } from '@tessera/dev-idp';
import { IDV_CALLBACK_PATH, IDV_FAILURES } from '../../src/index.js';
import {
  initiated,
  institutionalIdentity,
  institutionalUser,
  loginPage,
  newWallet,
  portalRedirect,
  signInAtProvider,
  startIdvBed,
  unknownHolderSession,
  walletIdentity,
  type IdvBed,
} from './support/idv-bed.js';
import { FetchBrowser } from './support/fetch-browser.js';

/**
 * What the institutional provider can do wrong (000 §3.2 "any non-terminal → ERROR", §7; security checklist
 * "Upstream OIDC login"), with the real development provider switched into each failure mode: each ends the attempt
 * in ERROR with its errorMessage, sends the browser to the portal with its reason, builds nothing (no identity, no
 * binding), leaves the presentation session waiting for IDV, and a new attempt works once the provider behaves.
 */
describe.each(DATABASE_KINDS)('IDV provider failures (%s)', (kind) => {
  let bed: IdvBed;
  const users: DemoUser[] = [
    ...['cancel', 'tokenerr', 'nonce', 'aud', 'iss', 'sig', 'exp', 'down', 'slow', 'strict'].map((n) =>
      institutionalUser(n),
    ),
    institutionalUser('noservice', false),
    institutionalUser('noservice2', false),
  ];

  beforeAll(async () => {
    bed = await startIdvBed(kind, users);
  });
  afterAll(async () => bed?.close());
  beforeEach(async () => {
    bed.clock.set(new Date());
    if (bed.idp.behaviour() !== 'normal') await bed.idp.setBehaviour('normal');
  });

  /** The attempt failed with `reason`: redirect, status, nothing built, the session still awaits IDV. */
  async function expectFailed(
    sessionId: string,
    back: { statusCode: number; location: string | undefined },
    reason: keyof typeof IDV_FAILURES,
    user: DemoUser,
  ) {
    expect(back.statusCode).toBe(303);
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'error', reason }));
    expect(await bed.idv.status(sessionId)).toEqual({
      statusCode: 200,
      body: { reconciliationStatus: 'ERROR', errorMessage: IDV_FAILURES[reason] },
    });
    expect(await institutionalIdentity(bed, user)).toBeNull();
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(202);
    const { events } = await bed.bed.t.platform.audit.query({ tenantId: 'demo', type: 'session_failed', limit: 500 });
    expect(
      events.some(
        (e) => e.businessIds.sessionId === sessionId && e.details.check === 'idv' && e.details.reason === reason,
      ),
    ).toBe(true);
  }

  /** After a failure: a new attempt of the same session succeeds. */
  async function expectRecovery(sessionId: string, user: DemoUser) {
    const retry = await initiated(bed, sessionId);
    const back = await bed.idv.callback(await signInAtProvider(bed, retry.authorizationUrl, user));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    expect(await bed.calls.complete(sessionId)).toMatchObject({ statusCode: 200, body: { isNewUser: true } });
    expect((await institutionalIdentity(bed, user))?.bindings.walletBound).toBe(true);
  }

  it('the person cancels at the provider: ERROR access_denied, and a new attempt works', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const browser = new FetchBrowser();
    const { page } = await loginPage(browser, start.authorizationUrl, bed.b.url!);
    // The login page's Cancel button posts to <interaction>/abort.
    const back = await browser.submit(
      new URL(`${page.url.pathname}/abort`, page.url),
      {},
      `${bed.b.url}${IDV_CALLBACK_PATH}`,
    );
    expect(back.response).toBeNull();
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('code')).toBeNull();
    await expectFailed(sessionId, await bed.idv.callback(back.url), 'access_denied', bed.user('cancel'));
    expect(await walletIdentity(bed, wallet)).toBeNull();
    await expectRecovery(sessionId, bed.user('cancel'));
  });

  it('the token endpoint refuses the code: ERROR token_exchange_failed, and a new attempt works', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const user = bed.user('tokenerr');
    const callbackUrl = await signInAtProvider(bed, (await initiated(bed, sessionId)).authorizationUrl, user);
    await bed.idp.setBehaviour('token_error');
    await expectFailed(sessionId, await bed.idv.callback(callbackUrl), 'token_exchange_failed', user);
    await bed.idp.setBehaviour('normal');
    await expectRecovery(sessionId, user);
  });

  it.each([
    ['wrong_nonce', 'nonce'],
    ['wrong_audience', 'aud'],
    ['wrong_issuer', 'iss'],
    ['bad_signature', 'sig'],
    ['expired_id_token', 'exp'],
  ] as const)('an ID token with %s: ERROR id_token_invalid, nothing built', async (behaviour, name) => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const user = bed.user(name);
    const callbackUrl = await signInAtProvider(bed, (await initiated(bed, sessionId)).authorizationUrl, user);
    await bed.idp.setBehaviour(behaviour as Behaviour);
    await expectFailed(sessionId, await bed.idv.callback(callbackUrl), 'id_token_invalid', user);
    expect(await walletIdentity(bed, wallet)).toBeNull();
  });

  it('the provider down: 503 at initiation and ERROR provider_unavailable at the callback; recovery after restart', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const user = bed.user('down');
    const callbackUrl = await signInAtProvider(bed, (await initiated(bed, sessionId)).authorizationUrl, user);
    await bed.idp.setBehaviour('down');
    try {
      await expectFailed(sessionId, await bed.idv.callback(callbackUrl), 'provider_unavailable', user);

      // A bridge that has not read the provider's metadata yet (new settings: a new client) cannot start.
      bed.b.config.idv.provider.timeoutSeconds = 3;
      const refused = await bed.idv.initiate(sessionId);
      expect(refused).toMatchObject({ statusCode: 503, body: { error: 'temporarily_unavailable' } });
      expect((await bed.idv.status(sessionId)).body).toEqual({
        reconciliationStatus: 'ERROR',
        errorMessage: IDV_FAILURES.provider_unavailable,
      });
    } finally {
      await bed.idp.restart();
      bed.b.config.idv.provider.timeoutSeconds = 2;
    }
    await expectRecovery(sessionId, user);
  });

  it('the provider slower than the bounded timeout: ERROR provider_unavailable; recovery once it is fast again', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const user = bed.user('slow');
    const callbackUrl = await signInAtProvider(bed, (await initiated(bed, sessionId)).authorizationUrl, user);
    // The token endpoint answers after 5 s; the bridge gives it 2 s (idv.provider.timeoutSeconds).
    await bed.idp.setBehaviour('slow', { delaySeconds: 5 });
    await expectFailed(sessionId, await bed.idv.callback(callbackUrl), 'provider_unavailable', user);
    await bed.idp.setBehaviour('normal');
    await expectRecovery(sessionId, user);
  });

  it('the service claim missing but sub present: the minimum of 000 §2.4 holds, IDV completes', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const user = bed.user('noservice');
    const back = await bed.idv.callback(
      await signInAtProvider(bed, (await initiated(bed, sessionId)).authorizationUrl, user),
    );
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    const identity = await institutionalIdentity(bed, user);
    expect(identity?.claims).toEqual({
      eduperson_principal_name: 'noservice@uni.example',
      email: 'noservice@uni.example',
      email_verified: true,
      given_name: 'noservice',
      family_name: 'Example',
      name: 'noservice Example',
    });
    expect((await bed.calls.complete(sessionId)).body.userId).toBe(identity?.internalIdentityId);
  });

  it('a deployment that requires the service claim (idv.requiredClaims): ERROR missing_claim, nothing built', async () => {
    // sub is always in a valid ID token (OIDC Core §2), so the minimum rule alone never fails: requiredClaims is how
    // a deployment makes the service claim mandatory, and the case where no rule passes.
    bed.b.config.idv.requiredClaims = ['service_id'];
    try {
      const wallet = await newWallet(bed);
      const sessionId = await unknownHolderSession(bed, wallet);
      const user = bed.user('noservice2');
      const start = await initiated(bed, sessionId);
      await expectFailed(
        sessionId,
        await bed.idv.callback(await signInAtProvider(bed, start.authorizationUrl, user)),
        'missing_claim',
        user,
      );
      expect(await walletIdentity(bed, wallet)).toBeNull();
      // A person with the service claim passes the same rule.
      await expectRecovery(sessionId, bed.user('strict'));
    } finally {
      bed.b.config.idv.requiredClaims = [];
    }
  });
});
