import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMigrations, type Sql } from '@tessera/platform';
import { DATABASE_KINDS, openTestDatabase, seedTenants, type TestDatabase } from '@tessera/platform/testing';
import { tokenServiceMigrations } from '../migrations.js';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { s256Challenge } from '../domain/pkce.js';
import { grantStore, type CodeRedemption, type Grant, type RefreshRedemption } from './grant-store.js';
import { distinctRounds, GrantRedemptions } from './grant-redemptions.js';

const CLIENT = 'demo-rp';
const REDIRECT = 'http://127.0.0.1:8400/callback';
const VERIFIER = 'v'.repeat(43);
const JKT = 'j'.repeat(43);
const now = new Date('2026-01-01T12:00:00.000Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);

/**
 * The single-statement redemptions (RFC 6749 §4.1.3, RFC 9700 §4.14.2): a refused redemption changes nothing, and
 * the state before the statement comes back so that the command can explain the refusal.
 */
describe.each(DATABASE_KINDS)('grant store redemptions (%s)', (kind) => {
  let t: TestDatabase;
  const inDemo = <T>(fn: (sql: Sql) => Promise<T>) => t.db.withTenantSession('demo', fn);

  beforeAll(async () => {
    t = await openTestDatabase(kind, [...platformMigrations, ...tokenServiceMigrations]);
    await seedTenants(t.db, 'demo');
  });
  afterAll(async () => t?.close());

  async function newCode(
    options: { scope?: string; dpopJkt?: string | null } = {},
  ): Promise<{ code: string; grantId: string }> {
    const code = newOpaqueToken();
    const grant: Grant = {
      id: randomUUID(),
      clientId: CLIENT,
      subject: 'alice',
      scope: options.scope ?? 'openid offline_access',
      acr: null,
      amr: [],
      authTime: null,
      claims: {},
      dpopJkt: options.dpopJkt ?? null,
      createdAt: now,
      expiresAt: later(60),
      revokedAt: null,
    };
    await t.db.withTenant('demo', (sql) =>
      // The store keeps the sealed claims as given; sealing itself is the command's (sealed-personal-data.test.ts).
      grantStore.saveGrantWithCode(sql, grant, `sealed-claims-of-${grant.id}`, {
        codeHash: hashToken(code),
        grantId: grant.id,
        clientId: CLIENT,
        redirectUri: REDIRECT,
        nonce: null,
        codeChallenge: s256Challenge(VERIFIER),
        codeChallengeMethod: 'S256',
        createdAt: now,
        expiresAt: later(60),
        consumedAt: null,
      }),
    );
    return { code, grantId: grant.id };
  }

  /** A redemption of `code` by the demo client with the right verifier, storing `refresh` as its first refresh token. */
  const codeInput = (code: string, refresh: string, overrides: Partial<CodeRedemption> = {}): CodeRedemption => ({
    codeHash: hashToken(code),
    clientId: CLIENT,
    redirectUri: REDIRECT,
    codeChallenge: s256Challenge(VERIFIER),
    now,
    dpopJkt: null,
    grantExpiresAt: later(300),
    grantExpiresAtWithRefresh: later(3600),
    refresh: { tokenHash: hashToken(refresh), expiresAt: later(3600), requiredScope: 'offline_access' },
    ...overrides,
  });

  /** A rotation of `token` by the demo client (confidential, no DPoP) into `next`. */
  const refreshInput = (
    token: string,
    overrides: Partial<RefreshRedemption> = {},
    next: string = newOpaqueToken(),
  ): RefreshRedemption => ({
    tokenHash: hashToken(token),
    clientId: CLIENT,
    now,
    rotatedAfter: null,
    dpopJkt: null,
    publicClient: false,
    scope: null,
    next: { tokenHash: hashToken(next), expiresAt: later(3600) },
    ...overrides,
  });

  const redeemCode = (code: string, overrides: Partial<CodeRedemption> = {}) => {
    const refresh = newOpaqueToken();
    return inDemo(async (sql) => ({
      refresh,
      ...(await grantStore.redeemCode(sql, codeInput(code, refresh, overrides))),
    }));
  };

  const rotate = (token: string, overrides: Partial<RefreshRedemption> = {}) => {
    const next = newOpaqueToken();
    return inDemo(async (sql) => ({
      next,
      ...(await grantStore.redeemRefreshToken(sql, refreshInput(token, overrides, next))),
    }));
  };

  const grantOf = (grantId: string) =>
    inDemo(
      async (sql) =>
        (
          await sql.query<{ expires_at: Date; dpop_jkt: string | null; revoked_at: Date | null }>(
            'SELECT expires_at, dpop_jkt, revoked_at FROM oauth_grants WHERE id = $1',
            [grantId],
          )
        ).rows[0]!,
    );

  it('consumes a code once, extends its grant and stores the first refresh token', async () => {
    const { code, grantId } = await newCode();
    const first = await redeemCode(code);
    expect(first).toMatchObject({ consumed: true, refreshStored: true });
    expect(first.found?.code.consumedAt).toBeNull();
    expect(first.found?.grant.id).toBe(grantId);
    expect(new Date((await grantOf(grantId)).expires_at).getTime()).toBe(later(3600).getTime());
    expect((await rotate(first.refresh)).rotated).toBe(true);
    const second = await redeemCode(code);
    expect(second.consumed).toBe(false);
    expect(second.found?.code.consumedAt?.getTime()).toBe(now.getTime());
  });

  it('stores no refresh token without offline_access, and gives the grant the shorter lifetime', async () => {
    const { code, grantId } = await newCode({ scope: 'openid' });
    expect(await redeemCode(code)).toMatchObject({ consumed: true, refreshStored: false });
    expect(new Date((await grantOf(grantId)).expires_at).getTime()).toBe(later(300).getTime());
  });

  it.each([
    ['another client', { clientId: 'other-rp' }],
    ['another redirect URI', { redirectUri: `${REDIRECT}/x` }],
    ['a wrong verifier', { codeChallenge: s256Challenge('w'.repeat(43)) }],
    ['an expired code', { now: later(61) }],
  ])('leaves the code unused when refused: %s', async (_name, overrides) => {
    const { code } = await newCode();
    const refused = await redeemCode(code, overrides);
    expect(refused).toMatchObject({ consumed: false, refreshStored: false });
    expect(refused.found?.code.consumedAt).toBeNull();
    expect((await redeemCode(code)).consumed).toBe(true);
  });

  it('a code bound to a DPoP key is consumed only with a proof by that key, and a proof binds an unbound grant', async () => {
    const bound = await newCode({ dpopJkt: JKT });
    expect((await redeemCode(bound.code)).consumed).toBe(false);
    expect((await redeemCode(bound.code, { dpopJkt: 'k'.repeat(43) })).consumed).toBe(false);
    expect((await redeemCode(bound.code, { dpopJkt: JKT })).consumed).toBe(true);
    const unbound = await newCode();
    expect((await redeemCode(unbound.code, { dpopJkt: JKT })).consumed).toBe(true);
    expect((await grantOf(unbound.grantId)).dpop_jkt).toBe(JKT);
  });

  it('an unknown code finds nothing', async () => {
    expect(await redeemCode(newOpaqueToken())).toMatchObject({ found: null, consumed: false });
  });

  it('rotates a refresh token once; a refused rotation leaves it as it was', async () => {
    const { code, grantId } = await newCode({ scope: 'openid email offline_access' });
    const { refresh } = await redeemCode(code);
    expect((await rotate(refresh, { clientId: 'other-rp' })).rotated).toBe(false);
    expect((await rotate(refresh, { now: later(3601) })).rotated).toBe(false);
    expect((await rotate(refresh, { scope: ['openid', 'profile'] })).rotated).toBe(false);
    expect((await rotate(refresh, { publicClient: true })).rotated).toBe(false);
    const narrower = await rotate(refresh, { scope: ['openid'] });
    expect(narrower.rotated).toBe(true);
    expect(narrower.found?.token.rotatedAt).toBeNull();
    expect(narrower.found?.grant.id).toBe(grantId);
    const successor = await inDemo((sql) => grantStore.findRefreshTokenWithGrant(sql, hashToken(narrower.next)));
    expect(successor?.token.scope).toBe('openid');
    const reuse = await rotate(refresh);
    expect(reuse.rotated).toBe(false);
    expect(reuse.found?.token.rotatedAt?.getTime()).toBe(now.getTime());
  });

  it('a reuse within the grace period rotates again; after it, it does not', async () => {
    const { code } = await newCode();
    const { refresh } = await redeemCode(code);
    expect((await rotate(refresh)).rotated).toBe(true);
    expect((await rotate(refresh, { now: later(5), rotatedAfter: later(-5) })).rotated).toBe(true);
    expect((await rotate(refresh, { now: later(20), rotatedAfter: later(10) })).rotated).toBe(false);
  });

  /** The grant's refresh tokens that are still live (not rotated, not superseded). */
  const liveTokens = (grantId: string) =>
    inDemo(async (sql) =>
      (
        await sql.query<{ token_hash: string }>(
          'SELECT token_hash FROM oauth_refresh_tokens WHERE grant_id = $1 AND rotated_at IS NULL',
          [grantId],
        )
      ).rows.map((r) => r.token_hash),
    );

  it('the grace window does not fork the family: a retry supersedes the unused successor, which is then a reuse', async () => {
    const { code, grantId } = await newCode();
    const { refresh } = await redeemCode(code);
    const first = await rotate(refresh);
    expect(first.rotated).toBe(true);
    const retry = await rotate(refresh, { now: later(5), rotatedAfter: later(-5) });
    expect(retry.rotated).toBe(true);
    // One live token: the retry's successor. Before the window named successors, both successors stayed live.
    expect(await liveTokens(grantId)).toEqual([hashToken(retry.next)]);
    const lost = await inDemo((sql) => grantStore.findRefreshTokenWithGrant(sql, hashToken(first.next)));
    expect(lost?.token.rotatedAt).not.toBeNull();
    expect(lost?.token.replacedBy).toBeNull();
    // The superseded successor is not rotatable, within the window or not: presenting it is a reuse.
    expect((await rotate(first.next, { now: later(6), rotatedAfter: later(-4) })).rotated).toBe(false);
    expect((await rotate(retry.next, { now: later(7) })).rotated).toBe(true);
  });

  it('within the grace window, a rotated token whose successor was used is a reuse', async () => {
    const { code, grantId } = await newCode();
    const { refresh } = await redeemCode(code);
    const first = await rotate(refresh);
    const second = await rotate(first.next, { now: later(2) });
    expect(second.rotated).toBe(true);
    expect((await rotate(refresh, { now: later(3), rotatedAfter: later(-7) })).rotated).toBe(false);
    expect(await liveTokens(grantId)).toEqual([hashToken(second.next)]);
  });

  it('a grace retry racing the use of its successor: exactly one wins, and the family keeps one live token', async () => {
    for (let round = 0; round < 10; round++) {
      const { code, grantId } = await newCode();
      const { refresh } = await redeemCode(code);
      const first = await rotate(refresh);
      const [used, retried] = await Promise.all([
        rotate(first.next, { now: later(1) }),
        rotate(refresh, { now: later(1), rotatedAfter: later(-9) }),
      ]);
      expect([used.rotated, retried.rotated].filter(Boolean)).toHaveLength(1);
      const winner = used.rotated ? used.next : retried.next;
      expect(await liveTokens(grantId)).toEqual([hashToken(winner)]);
    }
  });

  it('stages the audit event in the statement that rotates or consumes, and none when it refuses', async () => {
    const staged = () =>
      inDemo(async (sql) =>
        (await sql.query<{ event_id: string }>('SELECT event_id FROM audit_pending')).rows.map((r) => r.event_id),
      );
    const before = new Set(await staged());
    const event = (type: string) => ({
      tenantId: 'demo',
      eventId: randomUUID(),
      occurredAt: now.toISOString(),
      type,
      commandId: type,
      principalId: null,
      result: 'success' as const,
      correlationId: null,
      traceId: null,
      businessIds: {},
      details: {},
    });
    const { code } = await newCode();
    const consumed = event('code.consumed');
    const { refresh } = await redeemCode(code, { auditEvent: consumed });
    const refusedCode = event('code.refused');
    expect((await redeemCode(code, { auditEvent: refusedCode })).consumed).toBe(false);
    const rotatedEvent = event('token.rotated');
    expect((await rotate(refresh, { auditEvent: rotatedEvent })).rotated).toBe(true);
    const refusedRotation = event('token.refused');
    expect((await rotate(refresh, { auditEvent: refusedRotation })).rotated).toBe(false);
    const added = (await staged()).filter((id) => !before.has(id));
    expect(added.sort()).toEqual([consumed.eventId, rotatedEvent.eventId].sort());
  });

  it('a token of a revoked grant, or of a DPoP-bound grant without its key, is not rotated', async () => {
    const bound = await newCode({ dpopJkt: JKT });
    const { refresh } = await redeemCode(bound.code, { dpopJkt: JKT });
    expect((await rotate(refresh)).rotated).toBe(false);
    expect((await rotate(refresh, { dpopJkt: 'k'.repeat(43) })).rotated).toBe(false);
    const rotated = await rotate(refresh, { dpopJkt: JKT, publicClient: true });
    expect(rotated.rotated).toBe(true);
    await inDemo((sql) => grantStore.revokeGrant(sql, bound.grantId, 'test', now));
    const afterRevocation = await rotate(rotated.next, { dpopJkt: JKT });
    expect(afterRevocation.rotated).toBe(false);
    expect(afterRevocation.found?.grant.revokedAt).not.toBeNull();
  });

  it('of concurrent rotations of one token exactly one succeeds, as of concurrent redemptions of one code', async () => {
    const { code } = await newCode();
    const redemptions = await Promise.all(Array.from({ length: 10 }, () => redeemCode(code)));
    expect(redemptions.filter((r) => r.consumed)).toHaveLength(1);
    const refresh = redemptions.find((r) => r.consumed)!.refresh;
    const rotations = await Promise.all(Array.from({ length: 20 }, () => rotate(refresh)));
    expect(rotations.filter((r) => r.rotated)).toHaveLength(1);
  });

  it('one statement redeems several codes and rotates several tokens, each judged as it would be alone', async () => {
    const [a, b, c] = await Promise.all([newCode(), newCode({ scope: 'openid' }), newCode()]);
    const refreshes = [newOpaqueToken(), newOpaqueToken(), newOpaqueToken()];
    const codes = await inDemo((sql) =>
      grantStore.redeemCodes(sql, [
        codeInput(a!.code, refreshes[0]!),
        codeInput(newOpaqueToken(), newOpaqueToken()),
        codeInput(b!.code, refreshes[1]!),
        codeInput(c!.code, refreshes[2]!, { clientId: 'other-rp' }),
      ]),
    );
    expect(codes.map((r) => [r.consumed, r.refreshStored])).toEqual([
      [true, true],
      [false, false],
      [true, false],
      [false, false],
    ]);
    expect(codes[1]!.found).toBeNull();
    expect(codes.map((r) => r.found?.grant.id ?? null)).toEqual([a!.grantId, null, b!.grantId, c!.grantId]);
    expect(new Date((await grantOf(b!.grantId)).expires_at).getTime()).toBe(later(300).getTime());

    const second = await redeemCode(c!.code);
    const rotations = await inDemo((sql) =>
      grantStore.redeemRefreshTokens(sql, [
        refreshInput(second.refresh, { scope: ['openid'] }),
        refreshInput(refreshes[0]!, { clientId: 'other-rp' }),
        refreshInput(newOpaqueToken()),
        refreshInput(refreshes[0]!.slice(1)),
      ]),
    );
    expect(rotations.map((r) => r.rotated)).toEqual([true, false, false, false]);
    expect(rotations[1]!.found?.token.rotatedAt).toBeNull();
    expect(rotations.slice(2).map((r) => r.found)).toEqual([null, null]);
    expect((await rotate(refreshes[0]!)).rotated).toBe(true);
  });

  it('the batched redemptions give one success among concurrent presentations of one token, and rotate the rest', async () => {
    const redemptions = new GrantRedemptions(t.db);
    const codes = await Promise.all(Array.from({ length: 6 }, () => newCode()));
    const refreshes = await Promise.all(codes.map(async ({ code }) => (await redeemCode(code)).refresh));
    // Every token once, and the first one 8 more times, all at the same moment.
    const presented = [...refreshes, ...Array.from({ length: 8 }, () => refreshes[0]!)];
    const results = await Promise.all(
      presented.map((token) => redemptions.redeemRefreshToken('demo', refreshInput(token))),
    );
    expect(results.slice(1, refreshes.length).every((r) => r.rotated)).toBe(true);
    const ofFirst = [results[0]!, ...results.slice(refreshes.length)];
    expect(ofFirst.filter((r) => r.rotated)).toHaveLength(1);
    // The losers found the token as the winner left it: rotated, which the command treats as a reuse.
    expect(ofFirst.filter((r) => !r.rotated).every((r) => r.found?.token.rotatedAt !== null)).toBe(true);

    const { code } = await newCode();
    const exchanges = await Promise.all(
      Array.from({ length: 5 }, () =>
        redemptions.redeemCode('demo', codeInput(code, newOpaqueToken(), { refresh: null })),
      ),
    );
    expect(exchanges.filter((r) => r.consumed)).toHaveLength(1);
  });
});

describe('distinctRounds', () => {
  it('puts each key once per round, in arrival order', () => {
    expect(distinctRounds(['a', 'b', 'a', 'c', 'a', 'b'], (k) => k)).toEqual([[0, 1, 3], [2, 5], [4]]);
    expect(distinctRounds([], (k: string) => k)).toEqual([]);
  });
});
