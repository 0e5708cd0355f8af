import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { IDV_FAILURES } from '../../src/index.js';
import { reconciliationAad } from '../../src/idv/commands/fail-reconciliation.js';
import type { InstitutionalLogin } from '../../src/idv/domain/institutional-claims.js';
import { reconciliationStore } from '../../src/idv/storage/reconciliation-store.js';
import {
  initiated,
  institutionalIdentity,
  institutionalUser,
  newWallet,
  portalRedirect,
  signInAtProvider,
  startIdvBed,
  unknownHolderSession,
  walletIdentity,
  type IdvBed,
} from './support/idv-bed.js';

/**
 * Submit (000 §4.2, §3.1 "any → COMPLETED" when confirmed, §3.2 "confirmed false aborts; a new attempt may then be
 * started") and the binding rules of the callback (000 §3.2 "binding already held by a different wallet holder",
 * §4.2 (5): one unit of work, nothing half-built).
 */
describe.each(DATABASE_KINDS)('IDV submit and binding (%s)', (kind) => {
  let bed: IdvBed;
  const users = ['abort', 'taken', 'newcomer', 'race', 'kept'].map((n) => institutionalUser(n));

  beforeAll(async () => {
    bed = await startIdvBed(kind, users);
  });
  afterAll(async () => bed?.close());
  beforeEach(() => bed.clock.set(new Date()));

  it('submit confirmed false aborts: ERROR, the old state is refused, and a new attempt completes', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, bed.user('abort'));

    const aborted = await bed.idv.submit(sessionId, { confirmed: false });
    expect(aborted.statusCode).toBe(200);
    expect(aborted.body).toEqual({ reconciliationStatus: 'ERROR', message: expect.stringContaining('cancelled') });
    expect((await bed.idv.status(sessionId)).body).toEqual({
      reconciliationStatus: 'ERROR',
      errorMessage: IDV_FAILURES.aborted,
    });
    // Aborting again answers the same; confirming an aborted attempt is refused.
    expect((await bed.idv.submit(sessionId, { confirmed: false })).body.reconciliationStatus).toBe('ERROR');
    expect(await bed.idv.submit(sessionId, { confirmed: true })).toMatchObject({
      statusCode: 409,
      body: { error: 'invalid_session_state' },
    });
    // The person comes back from the provider after the abort: the state is no longer good.
    expect((await bed.idv.callback(callbackUrl)).statusCode).toBe(400);
    expect(await institutionalIdentity(bed, bed.user('abort'))).toBeNull();
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(202);

    const retry = await initiated(bed, sessionId);
    const back = await bed.idv.callback(await signInAtProvider(bed, retry.authorizationUrl, bed.user('abort')));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    expect(await bed.calls.complete(sessionId)).toMatchObject({ statusCode: 200, body: { isNewUser: true } });
  });

  it('an institutional identity already bound to another wallet holder: ERROR already_bound, nothing half-built', async () => {
    const user = bed.user('taken');
    const first = await newWallet(bed);
    const firstSession = await unknownHolderSession(bed, first);
    const firstStart = await initiated(bed, firstSession);
    expect((await bed.idv.callback(await signInAtProvider(bed, firstStart.authorizationUrl, user))).location).toBe(
      portalRedirect(firstSession, { status: 'success' }),
    );
    const owner = await institutionalIdentity(bed, user);

    // Another wallet, another holder, the same institutional person.
    const second = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, second);
    const start = await initiated(bed, sessionId);
    const back = await bed.idv.callback(await signInAtProvider(bed, start.authorizationUrl, user));
    expect(back.location).toBe(portalRedirect(sessionId, { status: 'error', reason: 'already_bound' }));
    expect((await bed.idv.status(sessionId)).body).toEqual({
      reconciliationStatus: 'ERROR',
      errorMessage: IDV_FAILURES.already_bound,
    });
    expect(await walletIdentity(bed, second)).toBeNull();
    expect((await walletIdentity(bed, first))?.internalIdentityId).toBe(owner?.internalIdentityId);
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(202);
    expect((await bed.calls.status(sessionId)).body.status).toBe('IDV_REQUIRED');

    // The holder already bound elsewhere (forceReconciliation of a known wallet) and a new institutional person:
    // the wallet is not moved, and no identity is created for that person.
    const known = await unknownHolderSession(bed, first, { forceReconciliation: true });
    const knownStart = await initiated(bed, known);
    const other = await bed.idv.callback(
      await signInAtProvider(bed, knownStart.authorizationUrl, bed.user('newcomer')),
    );
    expect(other.location).toBe(portalRedirect(known, { status: 'error', reason: 'already_bound' }));
    expect(await institutionalIdentity(bed, bed.user('newcomer'))).toBeNull();
    expect((await walletIdentity(bed, first))?.internalIdentityId).toBe(owner?.internalIdentityId);
  });

  it('two browsers arriving with the same callback at once: exactly one is processed, the other gets the 400 page', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet);
    const start = await initiated(bed, sessionId);
    const callbackUrl = await signInAtProvider(bed, start.authorizationUrl, bed.user('race'));
    const answers = await Promise.all([bed.idv.callback(callbackUrl), bed.idv.callback(callbackUrl)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([303, 400]);
    expect(answers.find((a) => a.statusCode === 303)?.location).toBe(portalRedirect(sessionId, { status: 'success' }));
    expect(await bed.calls.complete(sessionId)).toMatchObject({ statusCode: 200, body: { isNewUser: true } });
  });

  it('submit confirmed true records a verified login that a stopped process kept on a CALLBACK_RECEIVED attempt', async () => {
    const wallet = await newWallet(bed);
    const sessionId = await unknownHolderSession(bed, wallet, { oauthSessionId: 'portal-tx-kept' });
    const start = await initiated(bed, sessionId);
    const user = bed.user('kept');
    // What the callback holds once the provider's answer is verified (000 §4.2 (1)–(4)), left there as a process
    // that stopped before (5) would leave it: the state spent, the login sealed on the attempt.
    const platform = bed.bed.t.platform;
    const services = bed.b.handle.services;
    const login: InstitutionalLogin = {
      issuer: bed.idp.issuer,
      subject: user.sub,
      acr: bed.idp.acr,
      claims: { service_id: 'S-kept', eduperson_principal_name: 'kept@uni.example' },
    };
    const sealed = await services.sealer.sealJson(
      login,
      reconciliationAad('demo', start.reconciliationSessionId, 'outcome'),
    );
    await platform.db.withTenant('demo', async (sql) => {
      const attempt = await reconciliationStore.get(sql, start.reconciliationSessionId);
      expect(await reconciliationStore.spendState(sql, attempt!.id, attempt!.stateId, bed.clock.now())).not.toBeNull();
      expect(await reconciliationStore.keepOutcome(sql, attempt!.id, sealed)).toBe(true);
    });
    expect((await bed.idv.status(sessionId)).body).toEqual({
      reconciliationStatus: 'CALLBACK_RECEIVED',
      errorMessage: null,
    });
    expect((await bed.calls.complete(sessionId)).statusCode).toBe(202);

    const confirmed = await bed.idv.submit(sessionId, { confirmed: true });
    expect(confirmed).toEqual({
      statusCode: 200,
      body: { reconciliationStatus: 'COMPLETED', message: expect.any(String) },
    });
    const done = await bed.calls.complete(sessionId);
    expect(done).toMatchObject({ statusCode: 200, body: { isNewUser: true, claimSource: 'IDV_RECONCILIATION' } });
    expect((await institutionalIdentity(bed, user))?.internalIdentityId).toBe(done.body.userId);
    expect((await walletIdentity(bed, wallet))?.internalIdentityId).toBe(done.body.userId);
    // The sealed login is gone once recorded.
    const after = await platform.db.withTenant('demo', (sql) =>
      reconciliationStore.get(sql, start.reconciliationSessionId),
    );
    expect(after).toMatchObject({
      status: 'COMPLETED',
      outcomeSealed: null,
      pkceSealed: null,
      identityId: done.body.userId,
    });
  });
});
