import { describe, expect, it } from 'vitest';
import { RolePolicy, type AccessKind } from './policy.js';
import type { Principal } from './principal.js';

/** The default role policy (001 §5): evaluated on every command, the action is the command id. */

const principal = (overrides: Partial<Principal> = {}): Principal => ({
  id: 'user-1',
  kind: 'user',
  tenantId: 'acme',
  roles: [],
  scopes: [],
  clientId: null,
  issuer: 'https://issuer.tessera.test',
  ...overrides,
});

const policy = new RolePolicy({ tenantAdminRole: 'tenant-admin', platformAdminRole: 'platform-admin' });
const ask = (access: AccessKind, who: Principal | null, tenantId = 'acme', action = 'designs.designs.create') =>
  policy.decide({ action, access, tenantId, principal: who });

describe('RolePolicy', () => {
  it('allows public actions to anyone, even without a principal', () => {
    expect(ask('public', null)).toEqual({ allow: true, reason: 'public' });
    expect(ask('public', principal({ tenantId: 'other' }))).toEqual({ allow: true, reason: 'public' });
  });

  it.each<AccessKind>(['read', 'write', 'admin'])('denies %s without a principal as unauthenticated', (access) => {
    expect(ask(access, null)).toEqual({ allow: false, reason: 'unauthenticated' });
  });

  it.each<AccessKind>(['read', 'write', 'admin'])('allows a platform administrator to %s in any tenant', (access) => {
    const admin = principal({ roles: ['platform-admin'], tenantId: 'other' });
    expect(ask(access, admin)).toEqual({ allow: true, reason: 'platform_admin' });
    expect(ask(access, principal({ roles: ['platform-admin'], tenantId: null }), 'beta')).toEqual({
      allow: true,
      reason: 'platform_admin',
    });
  });

  it.each<AccessKind>(['read', 'write', 'admin'])('denies %s to a principal of another tenant', (access) => {
    const foreign = principal({ tenantId: 'beta', roles: ['tenant-admin'] });
    expect(ask(access, foreign, 'acme')).toEqual({ allow: false, reason: 'foreign_tenant' });
  });

  it('lets a tenant administrator write in its tenant', () => {
    expect(ask('write', principal({ roles: ['tenant-admin'] }))).toEqual({ allow: true, reason: 'tenant_admin' });
    expect(ask('read', principal({ roles: ['tenant-admin'] }))).toEqual({ allow: true, reason: 'tenant_reader' });
  });

  it('lets a plain principal of the tenant read but not write', () => {
    const plain = principal({ roles: ['reader'] });
    expect(ask('read', plain)).toEqual({ allow: true, reason: 'tenant_reader' });
    expect(ask('write', plain)).toEqual({ allow: false, reason: 'not_tenant_admin' });
  });

  it('treats a principal without a tenant claim as a principal of the request tenant', () => {
    expect(ask('read', principal({ tenantId: null }))).toEqual({ allow: true, reason: 'tenant_reader' });
    expect(ask('write', principal({ tenantId: null }))).toEqual({ allow: false, reason: 'not_tenant_admin' });
  });

  it('denies admin access to a tenant administrator', () => {
    expect(ask('admin', principal({ roles: ['tenant-admin'] }))).toEqual({
      allow: false,
      reason: 'not_platform_admin',
    });
    expect(ask('admin', principal())).toEqual({ allow: false, reason: 'not_platform_admin' });
  });

  it('uses the configured role names', () => {
    const custom = new RolePolicy({ tenantAdminRole: 'owner', platformAdminRole: 'root' });
    const req = { action: 'x', tenantId: 'acme' };
    expect(custom.decide({ ...req, access: 'write', principal: principal({ roles: ['owner'] }) }).allow).toBe(true);
    expect(custom.decide({ ...req, access: 'write', principal: principal({ roles: ['tenant-admin'] }) }).allow).toBe(
      false,
    );
    expect(custom.decide({ ...req, access: 'admin', principal: principal({ roles: ['root'] }) }).allow).toBe(true);
    expect(custom.decide({ ...req, access: 'admin', principal: principal({ roles: ['platform-admin'] }) }).allow).toBe(
      false,
    );
  });

  describe('action roles', () => {
    const withOverrides = new RolePolicy({
      tenantAdminRole: 'tenant-admin',
      platformAdminRole: 'platform-admin',
      actionRoles: { 'parties.persons.create': ['registrar', 'clerk'], 'audit.events.read': ['auditor'] },
    });
    const decide = (action: string, access: AccessKind, who: Principal | null, tenantId = 'acme') =>
      withOverrides.decide({ action, access, tenantId, principal: who });

    it('allows a principal holding any one of the roles of the action', () => {
      expect(decide('parties.persons.create', 'write', principal({ roles: ['clerk'] }))).toEqual({
        allow: true,
        reason: 'action_role',
      });
      expect(decide('audit.events.read', 'admin', principal({ roles: ['auditor'] }))).toEqual({
        allow: true,
        reason: 'action_role',
      });
    });

    it('denies a principal without one of the roles of the action, even a tenant administrator or a reader', () => {
      expect(decide('parties.persons.create', 'write', principal({ roles: ['tenant-admin'] }))).toEqual({
        allow: false,
        reason: 'missing_action_role',
      });
      expect(decide('parties.persons.create', 'read', principal())).toEqual({
        allow: false,
        reason: 'missing_action_role',
      });
    });

    it('does not let an action role cross tenants, and keeps the platform administrator', () => {
      expect(decide('parties.persons.create', 'write', principal({ roles: ['clerk'], tenantId: 'beta' }))).toEqual({
        allow: false,
        reason: 'foreign_tenant',
      });
      expect(decide('parties.persons.create', 'write', principal({ roles: ['platform-admin'] }))).toEqual({
        allow: true,
        reason: 'platform_admin',
      });
      expect(decide('parties.persons.create', 'write', null)).toEqual({ allow: false, reason: 'unauthenticated' });
    });

    it('leaves actions without an override to the default rules', () => {
      expect(decide('designs.designs.create', 'write', principal({ roles: ['tenant-admin'] }))).toEqual({
        allow: true,
        reason: 'tenant_admin',
      });
      expect(decide('designs.designs.create', 'write', principal({ roles: ['clerk'] }))).toEqual({
        allow: false,
        reason: 'not_tenant_admin',
      });
    });
  });

  describe('required scope', () => {
    const decide = (who: Principal | null, tenantId = 'acme', access: AccessKind = 'write') =>
      policy.decide({
        action: 'bridge.sessions.create',
        access,
        tenantId,
        principal: who,
        requiredScope: 'bridge:sessions',
      });

    it('grants the action to a principal of the tenant holding the scope, without any role', () => {
      expect(decide(principal({ kind: 'client', scopes: ['bridge:sessions'] }))).toEqual({
        allow: true,
        reason: 'scope',
      });
      expect(decide(principal({ kind: 'client', tenantId: null, scopes: ['openid', 'bridge:sessions'] }))).toEqual({
        allow: true,
        reason: 'scope',
      });
    });

    it('denies a principal without the scope and no role that grants the action', () => {
      expect(decide(principal({ kind: 'client', scopes: ['openid'] })).allow).toBe(false);
    });

    it('does not let the scope cross tenants, and keeps the platform administrator and the public rule', () => {
      expect(decide(principal({ scopes: ['bridge:sessions'], tenantId: 'beta' }))).toEqual({
        allow: false,
        reason: 'foreign_tenant',
      });
      expect(decide(principal({ roles: ['platform-admin'] }))).toEqual({ allow: true, reason: 'platform_admin' });
      expect(decide(null)).toEqual({ allow: false, reason: 'unauthenticated' });
      expect(decide(null, 'acme', 'public')).toEqual({ allow: true, reason: 'public' });
    });
  });
});
