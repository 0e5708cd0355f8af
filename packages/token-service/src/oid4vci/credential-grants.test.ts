import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformMigrations, type AppError } from '@tessera/platform';
import { createTestPlatform, DATABASE_KINDS, type TestPlatform } from '@tessera/platform/testing';
import { tokenServiceMigrations } from '../migrations.js';
import { hashToken } from '../domain/random.js';
import { createCredentialGrants, type CredentialGrants } from './credential-grants.js';
import { credentialGrantStore } from './credential-grant-store.js';
import { txCodeMatches } from './tx-code.js';
import { purgeCredentialGrants } from './purge-credential-grants.js';

/** Contract A of issue 19: the offer side of the OpenID4VCI grants, stored per tenant under row-level security. */
describe.each(DATABASE_KINDS)('credential grants (%s)', (kind) => {
  let t: TestPlatform;
  let grants: CredentialGrants;
  const rowOf = (tenantId: string, code: string, k: 'pre-authorized_code' | 'issuer_state' = 'pre-authorized_code') =>
    t.platform.db.withTenant(tenantId, (sql) => credentialGrantStore.find(sql, k, hashToken(code)));

  beforeAll(async () => {
    t = await createTestPlatform(kind, {
      migrations: [...platformMigrations, ...tokenServiceMigrations],
      overrides: { tenancy: { seedDemoTenant: true } },
    });
    await t.platform.tenants.ensure({ id: 'other', displayName: 'Other' });
    await t.platform.tenants.load();
    grants = createCredentialGrants(t.platform, { config: { preAuthorizedCodeTtlSeconds: 120 } });
  });
  afterAll(async () => t?.close());

  it('creates a pre-authorized code of 256 bits, stored as its hash, bound to the session and configurations', async () => {
    const before = t.platform.clock.now().getTime();
    const { preAuthorizedCode, expiresAt } = await grants.createPreAuthorizedCode('demo', {
      correlationId: 'session-1',
      credentialConfigurationIds: ['pid-sd-jwt', 'pid-sd-jwt', 'diploma'],
    });
    expect(Buffer.from(preAuthorizedCode, 'base64url').length).toBe(32);
    expect(expiresAt.getTime() - before).toBeGreaterThanOrEqual(119_000);
    expect(expiresAt.getTime() - before).toBeLessThanOrEqual(121_000);
    const row = await rowOf('demo', preAuthorizedCode);
    expect(row).toMatchObject({
      kind: 'pre-authorized_code',
      correlationId: 'session-1',
      credentialConfigurationIds: ['pid-sd-jwt', 'diploma'],
      txCodeMac: null,
      redeemedAt: null,
    });
    const raw = await t.platform.db.withTenant('demo', (sql) =>
      sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM oauth_credential_grants WHERE code_hash = $1 OR correlation_id = $1`,
        [preAuthorizedCode],
      ),
    );
    expect(raw.rows[0]!.n).toBe(0);
  });

  it('keeps a given code and stores the PIN only as a keyed MAC that matches it and nothing else', async () => {
    const given = 'given-code-'.padEnd(40, 'x');
    const { preAuthorizedCode } = await grants.createPreAuthorizedCode('demo', {
      correlationId: 'session-2',
      credentialConfigurationIds: ['pid-sd-jwt'],
      preAuthorizedCode: given,
      txCode: '493536',
      ttlSeconds: 30,
    });
    expect(preAuthorizedCode).toBe(given);
    const row = (await rowOf('demo', given))!;
    expect(row.txCodeMac).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(row.txCodeMac).not.toContain('493536');
    const keys = t.platform.keys;
    expect(await txCodeMatches(keys, 'demo', hashToken(given), '493536', row.txCodeMac!)).toBe(true);
    expect(await txCodeMatches(keys, 'demo', hashToken(given), '493537', row.txCodeMac!)).toBe(false);
    // Bound to the code: the same PIN does not match under another code.
    expect(await txCodeMatches(keys, 'demo', hashToken('another'), '493536', row.txCodeMac!)).toBe(false);
  });

  it('creates an issuer_state bound to the session', async () => {
    const { issuerState, expiresAt } = await grants.createIssuerState('demo', {
      correlationId: 'session-3',
      credentialConfigurationIds: ['diploma'],
    });
    expect(Buffer.from(issuerState, 'base64url').length).toBe(32);
    expect(expiresAt.getTime()).toBeGreaterThan(t.platform.clock.now().getTime());
    expect(await rowOf('demo', issuerState, 'issuer_state')).toMatchObject({
      correlationId: 'session-3',
      credentialConfigurationIds: ['diploma'],
    });
    // An issuer_state is not a pre-authorized code.
    expect(await rowOf('demo', issuerState, 'pre-authorized_code')).toBeNull();
  });

  it('confines a grant to its tenant (row-level security)', async () => {
    const { preAuthorizedCode } = await grants.createPreAuthorizedCode('other', {
      correlationId: 'session-o',
      credentialConfigurationIds: ['pid-sd-jwt'],
    });
    expect(await rowOf('other', preAuthorizedCode)).not.toBeNull();
    expect(await rowOf('demo', preAuthorizedCode)).toBeNull();
  });

  it('refuses a given code that is already in use, with a conflict', async () => {
    const given = 'z'.repeat(30);
    await grants.createPreAuthorizedCode('demo', {
      correlationId: 's-a',
      credentialConfigurationIds: ['x'],
      preAuthorizedCode: given,
    });
    await expect(
      grants.createPreAuthorizedCode('demo', {
        correlationId: 's-b',
        credentialConfigurationIds: ['x'],
        preAuthorizedCode: given,
      }),
    ).rejects.toMatchObject({ code: 'conflict', status: 409 });
    expect((await rowOf('demo', given))!.correlationId).toBe('s-a');
  });

  it.each([
    ['a short given code (<128 bits)', { preAuthorizedCode: 'short' }, 'preAuthorizedCode'],
    ['a given code with a space', { preAuthorizedCode: 'a b'.padEnd(30, 'c') }, 'preAuthorizedCode'],
    ['an empty PIN', { txCode: '' }, 'txCode'],
    ['a PIN with a control character', { txCode: '12\n34' }, 'txCode'],
    ['a PIN of 65 characters', { txCode: '1'.repeat(65) }, 'txCode'],
    ['no configuration', { credentialConfigurationIds: [] }, 'credentialConfigurationIds'],
    ['a configuration id that is not a string', { credentialConfigurationIds: [42] }, 'credentialConfigurationIds'],
    ['an empty correlation id', { correlationId: '' }, 'correlationId'],
    ['a lifetime above the maximum', { ttlSeconds: 10 ** 7 }, 'ttlSeconds'],
    ['a lifetime of zero', { ttlSeconds: 0 }, 'ttlSeconds'],
    ['a fractional lifetime', { ttlSeconds: 1.5 }, 'ttlSeconds'],
  ])('refuses %s with a 400 naming the field', async (_name, over, field) => {
    const input = { correlationId: 'session-x', credentialConfigurationIds: ['pid-sd-jwt'], ...over } as never;
    const error = (await grants.createPreAuthorizedCode('demo', input).catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, field });
  });

  it('purges a grant a day after it expired, and keeps it until then', async () => {
    const short = await grants.createPreAuthorizedCode('demo', {
      correlationId: 'purge-me',
      credentialConfigurationIds: ['x'],
      ttlSeconds: 10,
    });
    const long = await grants.createPreAuthorizedCode('demo', {
      correlationId: 'keep-me',
      credentialConfigurationIds: ['x'],
      ttlSeconds: 86_400,
    });
    const at = (seconds: number) => new Date(t.platform.clock.now().getTime() + seconds * 1000);
    await t.platform.db.withTenant('demo', (sql) => purgeCredentialGrants(sql, at(3600)));
    expect(await rowOf('demo', short.preAuthorizedCode)).not.toBeNull();
    await t.platform.db.withTenant('demo', (sql) => purgeCredentialGrants(sql, at(86_400 + 20)));
    expect(await rowOf('demo', short.preAuthorizedCode)).toBeNull();
    expect(await rowOf('demo', long.preAuthorizedCode)).not.toBeNull();
  });

  it('records an audit event per creation under the issuer principal, with the session id only', async () => {
    await grants.createIssuerState('demo', { correlationId: 'session-audit', credentialConfigurationIds: ['x'] });
    const page = await t.platform.audit.query({ tenantId: 'demo', principalId: 'oid4vci-issuer', limit: 500 });
    const mine = page.events.filter((e) => e.businessIds?.correlationId === 'session-audit');
    expect(mine.map((e) => [e.commandId, e.result])).toEqual([
      ['token-service.credential-grants.create-issuer-state', 'success'],
    ]);
    const all = JSON.stringify(page.events);
    expect(all).not.toContain('493536');
  });
});
