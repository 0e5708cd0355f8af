import { NO_COUNTS, type KeyMigrationCounters, type KeyVersions } from '../domain/key-migration.js';
import type { TenantUnit } from '../identity-store.js';
import { UndecryptableRecordError } from '../keys/identity-crypto.js';
import type { IdentityForms } from '../keys/identity-forms.js';
import type { NextFormWrites, RekeyBatchRows, RekeyFederationRow, RekeyWalletRow } from '../storage/rekey-rows.js';

export interface RekeyOutcome {
  counts: KeyMigrationCounters;
  writes: NextFormWrites;
}

type Writes = Omit<NextFormWrites, 'purgeWallet' | 'purgeFederation'>;

/**
 * Computes a batch's forms under the new keys (issue 5 §6: "re-encrypting and re-indexing every record"). Per
 * identity, each value that lacks its new form is opened under its current key and sealed (and MACed) under the new
 * one; values written while the migration was open already have theirs. An identity whose every value has its new
 * form is skipped; one with a value that does not open is failed and left untouched. Soft-deleted bindings past
 * their retention are purged rather than re-encrypted (the retention job would delete them anyway).
 */
export async function rekeyBatch(
  unit: TenantUnit,
  forms: IdentityForms,
  to: KeyVersions,
  rows: RekeyBatchRows,
  purgeBefore: Date,
): Promise<RekeyOutcome> {
  const counts = { ...NO_COUNTS };
  const writes: NextFormWrites = {
    claims: [],
    identifiers: [],
    wallet: [],
    federation: [],
    purgeWallet: [],
    purgeFederation: [],
  };
  const expired = (row: { soft_deleted_at: Date | string | null }) =>
    row.soft_deleted_at !== null && new Date(row.soft_deleted_at).getTime() <= purgeBefore.getTime();

  for (const identity of rows.identities) {
    const id = identity.internal_identity_id;
    const wallet = rows.wallet.filter((w) => w.identity_id === id);
    const federation = rows.federation.filter((f) => f.identity_id === id);
    for (const w of wallet.filter(expired)) writes.purgeWallet.push(w.binding_id);
    for (const f of federation.filter(expired)) writes.purgeFederation.push(f.binding_id);
    counts.recordsPurged += wallet.filter(expired).length + federation.filter(expired).length;

    const own: Writes = { claims: [], identifiers: [], wallet: [], federation: [] };
    try {
      if (identity.next_encrypted_claims === null) {
        const claims = parseClaims(await forms.openClaims(unit, id, identity.encrypted_claims));
        const next = await forms.claims(unit, to, id, claims);
        own.claims.push({ identityId: id, sealed: next.sealed });
        own.identifiers.push(...next.identifiers.map((f) => ({ ...f, identityId: id })));
      }
      for (const w of wallet.filter((b) => !expired(b) && b.next_sealed_holder_key === null)) {
        await rekeyWallet(unit, forms, to, w, own);
      }
      for (const f of federation.filter((b) => !expired(b) && b.next_sealed_subject === null)) {
        await rekeyFederation(unit, forms, to, f, own);
      }
    } catch (error) {
      // Only a value that does not open fails the record; anything else (the database, the key manager) stops
      // the batch, whose transaction then rolls back. The cause stays out of the record and the logs.
      if (!(error instanceof UndecryptableRecordError)) throw error;
      counts.recordsFailed++;
      continue;
    }
    const rewritten = own.claims.length + own.wallet.length + own.federation.length;
    if (rewritten === 0) counts.recordsSkipped++;
    else counts.recordsProcessed++;
    writes.claims.push(...own.claims);
    writes.identifiers.push(...own.identifiers);
    writes.wallet.push(...own.wallet);
    writes.federation.push(...own.federation);
  }
  return { counts, writes };
}

async function rekeyWallet(unit: TenantUnit, forms: IdentityForms, to: KeyVersions, row: RekeyWalletRow, own: Writes) {
  const holderKey = await forms.openHolderKey(unit, row.binding_id, row.sealed_holder_key);
  const next = await forms.wallet(unit, to, row.binding_id, holderKey, row.soft_deleted_at === null);
  own.wallet.push({ bindingId: row.binding_id, sealed: next.sealed });
  own.identifiers.push(...next.identifiers.map((f) => ({ ...f, identityId: row.identity_id })));
}

async function rekeyFederation(
  unit: TenantUnit,
  forms: IdentityForms,
  to: KeyVersions,
  row: RekeyFederationRow,
  own: Writes,
) {
  const subject = await forms.openSubject(unit, row.binding_id, row.issuer, row.sealed_subject);
  const next = await forms.federation(unit, to, row.binding_id, row.issuer, subject);
  own.federation.push({ bindingId: row.binding_id, sealed: next.sealed, mac: next.mac });
}

function parseClaims(json: string): Record<string, unknown> {
  try {
    return JSON.parse(json) as Record<string, unknown>;
  } catch (cause) {
    throw new UndecryptableRecordError(cause);
  }
}
