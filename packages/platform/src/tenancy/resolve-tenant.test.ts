import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import type { Principal } from '../auth/principal.js';
import { openTestDatabase, seedTenants, type TestDatabase } from '../testing/databases.js';
import { TenantRegistry } from './tenant-registry.js';
import { resolveTenant } from './resolve-tenant.js';

/**
 * The tenant of a request (001 §5): the validated JWT, else the Host mapping, else the default; a token of
 * another tenant than the host's is refused, and an unknown or suspended tenant resolves nothing.
 */

const principal = (tenantId: string | null): Principal => ({
  id: 'user-1',
  kind: 'user',
  tenantId,
  roles: [],
  scopes: [],
  clientId: null,
  issuer: 'https://issuer.tessera.test',
});

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the tenant resolution to fail');
}

describe('resolveTenant', () => {
  let t: TestDatabase;
  let registry: TenantRegistry;

  beforeAll(async () => {
    t = await openTestDatabase('pglite');
    await seedTenants(t.db, 'alpha', 'beta', 'gamma', 'sleepy');
    await t.db.withPlatform((sql) =>
      sql.query(`UPDATE tenants SET host_names = $1 WHERE id = 'gamma'`, [['g.example']]),
    );
    await t.db.withPlatform((sql) => sql.query(`UPDATE tenants SET status = 'suspended' WHERE id = 'sleepy'`));
    registry = new TenantRegistry(t.db, { 'b.example': 'beta', 's.example': 'sleepy', 'ghost.example': 'ghost' });
    await registry.load();
  });

  afterAll(async () => {
    await t.close();
  });

  it('takes the tenant of the token first', () => {
    expect(
      resolveTenant(registry, { principal: principal('alpha'), host: 'unmapped.example', defaultTenant: 'gamma' }),
    ).toBe('alpha');
    expect(resolveTenant(registry, { principal: principal('alpha'), host: undefined, defaultTenant: 'gamma' })).toBe(
      'alpha',
    );
  });

  it('accepts a token whose tenant is the tenant of the host', () => {
    expect(resolveTenant(registry, { principal: principal('beta'), host: 'b.example', defaultTenant: 'alpha' })).toBe(
      'beta',
    );
  });

  it('uses the host mapping without a token, or with a token that names no tenant', () => {
    expect(resolveTenant(registry, { principal: null, host: 'b.example', defaultTenant: 'alpha' })).toBe('beta');
    expect(resolveTenant(registry, { principal: principal(null), host: 'b.example', defaultTenant: 'alpha' })).toBe(
      'beta',
    );
  });

  it('matches host names without regard to case, from configuration and from the tenant rows', () => {
    expect(resolveTenant(registry, { principal: null, host: 'B.Example', defaultTenant: undefined })).toBe('beta');
    expect(resolveTenant(registry, { principal: null, host: 'g.example', defaultTenant: undefined })).toBe('gamma');
  });

  it('uses the default tenant last', () => {
    expect(resolveTenant(registry, { principal: null, host: 'unmapped.example', defaultTenant: 'alpha' })).toBe(
      'alpha',
    );
    expect(resolveTenant(registry, { principal: null, host: undefined, defaultTenant: 'alpha' })).toBe('alpha');
  });

  it('refuses a token of another tenant than the host with policy_denied (403)', () => {
    const error = refusal(() =>
      resolveTenant(registry, { principal: principal('alpha'), host: 'b.example', defaultTenant: 'alpha' }),
    );
    expect(error.code).toBe('policy_denied');
    expect(error.status).toBe(403);
  });

  it('answers tenant_not_resolved (400) when nothing names a tenant', () => {
    const error = refusal(() =>
      resolveTenant(registry, { principal: null, host: undefined, defaultTenant: undefined }),
    );
    expect(error.code).toBe('tenant_not_resolved');
    expect(error.status).toBe(400);
    expect(
      refusal(() =>
        resolveTenant(registry, { principal: principal(null), host: 'unmapped.example', defaultTenant: undefined }),
      ).code,
    ).toBe('tenant_not_resolved');
  });

  it('answers tenant_not_resolved for a tenant that does not exist, whatever names it', () => {
    for (const input of [
      { principal: principal('nobody'), host: undefined, defaultTenant: 'alpha' },
      { principal: null, host: 'ghost.example', defaultTenant: 'alpha' },
      { principal: null, host: undefined, defaultTenant: 'nobody' },
    ]) {
      const error = refusal(() => resolveTenant(registry, input));
      expect(error.code).toBe('tenant_not_resolved');
      expect(error.status).toBe(400);
    }
  });

  it('answers tenant_not_resolved for a suspended tenant, whatever names it', () => {
    for (const input of [
      { principal: principal('sleepy'), host: undefined, defaultTenant: 'alpha' },
      { principal: null, host: 's.example', defaultTenant: 'alpha' },
      { principal: null, host: undefined, defaultTenant: 'sleepy' },
    ]) {
      expect(refusal(() => resolveTenant(registry, input)).code).toBe('tenant_not_resolved');
    }
  });

  it('stops resolving a tenant once it is suspended and the registry reloads', async () => {
    expect(resolveTenant(registry, { principal: principal('alpha'), host: undefined, defaultTenant: undefined })).toBe(
      'alpha',
    );
    await t.db.withPlatform((sql) => sql.query(`UPDATE tenants SET status = 'suspended' WHERE id = 'alpha'`));
    await registry.load();
    try {
      const error = refusal(() =>
        resolveTenant(registry, { principal: principal('alpha'), host: undefined, defaultTenant: undefined }),
      );
      expect(error.code).toBe('tenant_not_resolved');
      expect(error.status).toBe(400);
    } finally {
      await t.db.withPlatform((sql) => sql.query(`UPDATE tenants SET status = 'active' WHERE id = 'alpha'`));
      await registry.load();
    }
  });
});
