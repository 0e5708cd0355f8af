import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import { KeyMigrationRunner, type KeyMigrationRunnerOptions } from '../src/key-migration/key-migration-runner.js';
import { PostgresIdentityStore } from '../src/storage/postgres-identity-store.js';
import { assurance, SERVICE_CLAIM, type Harness } from './support.js';

export const ISSUER = 'https://idp.uni.example';
const DAY_MS = 86_400_000;

export interface Seeded {
  id: string;
  claims: Record<string, unknown>;
  wallets: string[];
  subjects: string[];
}

/**
 * `count` identities with distinctive claims; every second one with a wallet binding, every third one with a
 * federation binding. The first also holds a binding soft-deleted 40 days ago (past a 30-day retention), the second
 * one soft-deleted 5 days ago.
 */
export async function seed(h: Harness, tenantId: string, count: number): Promise<Seeded[]> {
  const tag = randomBytes(4).toString('hex');
  const seeded: Seeded[] = [];
  for (let i = 0; i < count; i++) {
    const claims = {
      [SERVICE_CLAIM]: `SVC-${tag}-${i}`,
      eduperson_principal_name: `member${i}.${tag}@uni.example`,
      email: `person${i}.${tag}@mail.example`,
      given_name: `Given${tag}${i}`,
    };
    const wallets = i % 2 === 0 ? [`did:jwk:holder-${tag}-${i}`] : [];
    const subjects = i % 3 === 0 ? [`subject-${tag}-${i}`] : [];
    const created = await h.unit(tenantId, async (u) => {
      const identity = await h.store.createIdentity(u, { claims, assurance });
      for (const w of wallets) await h.store.bindWallet(u, identity.internalIdentityId, w);
      for (const s of subjects) await h.store.bindFederation(u, identity.internalIdentityId, ISSUER, s);
      return identity;
    });
    seeded.push({ id: created.internalIdentityId, claims, wallets, subjects });
  }
  await softDeletedBinding(h, tenantId, seeded[0]!.id, `did:jwk:expired-${tag}`, 40);
  if (seeded[1]) await softDeletedBinding(h, tenantId, seeded[1].id, `did:jwk:resting-${tag}`, 5);
  return seeded;
}

/** A wallet binding soft-deleted `daysAgo` days ago, as the retention job leaves it (no KEY index rows). */
async function softDeletedBinding(
  h: Harness,
  tenantId: string,
  identityId: string,
  holderKey: string,
  daysAgo: number,
) {
  const bindingIds = () =>
    h.t.db.withTenant(tenantId, async (sql) =>
      (
        await sql.query<{ binding_id: string }>(`SELECT binding_id FROM wallet_bindings WHERE identity_id = $1`, [
          identityId,
        ])
      ).rows.map((r) => r.binding_id),
    );
  const before = await bindingIds();
  await h.unit(tenantId, (u) => h.store.bindWallet(u, identityId, holderKey));
  const bindingId = (await bindingIds()).find((id) => !before.includes(id))!;
  const at = new Date(h.clock.now().getTime() - daysAgo * DAY_MS);
  await h.t.db.withTenant(tenantId, async (sql) => {
    await sql.query(`UPDATE wallet_bindings SET soft_deleted_at = $2 WHERE binding_id = $1`, [bindingId, at]);
    await sql.query(`DELETE FROM identity_identifiers WHERE binding_id = $1`, [bindingId]);
  });
}

/** Every seeded record reads back, and every lookup finds it, through a store built afresh (a restarted process). */
export async function expectAllReadable(h: Harness, tenantId: string, seeded: Seeded[]): Promise<void> {
  const store = new PostgresIdentityStore({ keys: h.newKeyManager(), clock: h.clock, serviceClaim: SERVICE_CLAIM });
  await h.unit(tenantId, async (u) => {
    for (const s of seeded) {
      expect((await store.get(u, s.id))?.claims).toEqual(s.claims);
      for (const [type, claim] of [
        ['SERVICE_ID', SERVICE_CLAIM],
        ['EPPN', 'eduperson_principal_name'],
      ] as const) {
        const value = s.claims[claim];
        if (typeof value !== 'string') continue;
        expect((await store.findByIdentifier(u, type, value)).map((r) => r.internalIdentityId)).toContain(s.id);
      }
      for (const w of s.wallets) expect((await store.findByHolderKey(u, w))?.internalIdentityId).toBe(s.id);
      for (const sub of s.subjects)
        expect((await store.findByFederationSubject(u, ISSUER, sub))?.internalIdentityId).toBe(s.id);
    }
  });
}

export function newRunner(
  h: Harness,
  options: Partial<KeyMigrationRunnerOptions> & Pick<KeyMigrationRunnerOptions, 'audit'>,
) {
  return new KeyMigrationRunner({
    db: h.t.db,
    keys: h.keys,
    clock: h.clock,
    serviceClaim: SERVICE_CLAIM,
    batchSize: 5,
    softDeleteDays: 30,
    ...options,
  });
}

/** Key ids in the stored envelopes and index rows of a tenant (what the records are really under). */
export async function storedKeyUse(h: Harness, tenantId: string) {
  return h.t.db.withTenant(tenantId, async (sql) => {
    const kidsOf = async (text: string) =>
      [...new Set((await sql.query<{ v: string }>(text)).rows.map((r) => r.v.split('.')[1]))].sort();
    return {
      claimKids: await kidsOf(`SELECT encrypted_claims AS v FROM identities`),
      walletKids: await kidsOf(`SELECT sealed_holder_key AS v FROM wallet_bindings`),
      federationKids: await kidsOf(`SELECT sealed_subject AS v FROM federation_bindings`),
      indexVersions: (
        await sql.query<{ key_version: number }>(`SELECT DISTINCT key_version FROM identity_identifiers ORDER BY 1`)
      ).rows.map((r) => r.key_version),
      nextForms: Number(
        (
          await sql.query<{ n: string }>(
            `SELECT (SELECT count(*) FROM identities WHERE next_encrypted_claims IS NOT NULL)
                  + (SELECT count(*) FROM wallet_bindings WHERE next_sealed_holder_key IS NOT NULL)
                  + (SELECT count(*) FROM federation_bindings WHERE next_sealed_subject IS NOT NULL) AS n`,
          )
        ).rows[0]!.n,
      ),
      state: (
        await sql.query<{ dek_version: number; hmac_version: number }>(
          `SELECT dek_version, hmac_version FROM identity_key_state`,
        )
      ).rows[0],
    };
  });
}
