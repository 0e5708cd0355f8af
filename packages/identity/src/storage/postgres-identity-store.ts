import { randomUUID } from 'node:crypto';
import { AppError, notFound, type Clock, type KeyManager } from '@tessera/platform';
import { federationSubjectKey, isIdentifierType, isLookupHash, isUuid } from '../domain/identifiers.js';
import type {
  Assurance,
  IdentifierHashQuery,
  IdentifierType,
  IdentityRecord,
  IdentityStore,
  TenantUnit,
} from '../identity-store.js';
import { IdentityCrypto } from '../keys/identity-crypto.js';
import { IdentityForms } from '../keys/identity-forms.js';
import {
  deleteWalletBinding,
  insertFederationBinding,
  insertWalletBinding,
  liveFederationBinding,
  liveWalletBinding,
  touchFederationBinding,
  touchWalletBinding,
  unindexSoftDeletedHolder,
} from './binding-rows.js';
import { deleteClaimIdentifiers, identitiesByMacs, identityIdsByMac, insertIdentifiers } from './identifier-rows.js';
import {
  deleteIdentity,
  insertIdentity,
  lockIdentity,
  replaceClaims,
  selectIdentities,
  touchIdentity,
  type IdentityRow,
} from './identity-rows.js';
import { loadKeyContext } from '../keys/key-context.js';
import type { KeyContext } from './key-state-store.js';
import { assertAssurance, assertClaims, assertText } from './store-input.js';

export interface PostgresIdentityStoreOptions {
  keys: KeyManager;
  clock: Clock;
  /** The deployment's service claim (`deployment.serviceClaim`): its value is the SERVICE_ID identifier. */
  serviceClaim: string;
}

/**
 * The identity store on PostgreSQL (000 §2.5, §4.3). Nothing identifying is stored in the clear: claims and the
 * raw values behind bindings are sealed under the tenant's data key, and every lookup computes the HMAC of what it
 * is given and queries by that. Rows are scoped by row-level security to the caller's tenant, so tenant B neither
 * sees nor binds tenant A's identities. Every method works inside the caller's unit of work.
 */
export class PostgresIdentityStore implements IdentityStore {
  private readonly clock: Clock;
  private readonly crypto: IdentityCrypto;
  private readonly forms: IdentityForms;

  constructor(options: PostgresIdentityStoreOptions) {
    this.clock = options.clock;
    this.crypto = new IdentityCrypto(options.keys);
    this.forms = new IdentityForms(this.crypto, options.serviceClaim);
  }

  async findByHolderKey(unit: TenantUnit, holderKey: string): Promise<IdentityRecord | null> {
    assertText(holderKey, 'holderKey');
    const macs = await this.forms.lookupMacs(unit, await this.context(unit), holderKey);
    const binding = await liveWalletBinding(unit.sql, macs);
    if (!binding) return null;
    await this.recordUse(unit, binding.identityId, () =>
      touchWalletBinding(unit.sql, binding.bindingId, this.clock.now()),
    );
    return this.get(unit, binding.identityId);
  }

  async findByIdentifier(unit: TenantUnit, type: IdentifierType, value: string): Promise<IdentityRecord[]> {
    assertIdentifierType(type);
    assertText(value, 'value');
    const macs = await this.forms.lookupMacs(unit, await this.context(unit), value);
    return this.load(unit, await identityIdsByMac(unit.sql, type, macs));
  }

  /**
   * 000 §4.3 POST /lookup: the client's hash (base64url, no padding, of HMAC-SHA256 under the shared key of the
   * identifier's UTF-8 bytes) is compared with the stored MACs as is. While a key migration is open, a hash under
   * the old key matches every record, and one under the new key the records already re-indexed (and those written
   * meanwhile); once it completes, only the new key's.
   */
  async findByIdentifierHash(unit: TenantUnit, type: IdentifierType, hash: string): Promise<IdentityRecord[]> {
    const [found] = await this.findByIdentifierHashes(unit, [{ type, hash }]);
    if (found!.status === 'rejected') throw found!.reason;
    return found!.value;
  }

  /**
   * The same for a batch, in ONE statement whatever its size (000 §4.3; the bridge batches concurrent lookups of a
   * tenant). Queries are checked one by one, so that a bad one fails alone; the claims of each row are opened with
   * the key manager's cached key versions (no key is fetched per lookup once warm).
   */
  async findByIdentifierHashes(
    unit: TenantUnit,
    queries: readonly IdentifierHashQuery[],
  ): Promise<PromiseSettledResult<IdentityRecord[]>[]> {
    const checked = queries.map((q) => settle(() => checkHashQuery(q)));
    const probes = queries.flatMap((q, i) =>
      checked[i]!.status === 'fulfilled' ? [{ type: q.type, mac: q.hash }] : [],
    );
    const positions = queries.flatMap((_, i) => (checked[i]!.status === 'fulfilled' ? [i] : []));
    const rows = await identitiesByMacs(unit.sql, probes);
    const byQuery = new Map<number, IdentityRow[]>();
    for (const row of rows) {
      const at = positions[row.ord - 1]!;
      const list = byQuery.get(at);
      if (list) list.push(row);
      else byQuery.set(at, [row]);
    }
    return Promise.all(
      checked.map(async (check, i): Promise<PromiseSettledResult<IdentityRecord[]>> => {
        if (check.status === 'rejected') return check;
        try {
          const value = await Promise.all((byQuery.get(i) ?? []).map((row) => this.toRecord(unit, row)));
          return { status: 'fulfilled', value };
        } catch (reason) {
          return { status: 'rejected', reason };
        }
      }),
    );
  }

  async findByFederationSubject(unit: TenantUnit, issuer: string, subject: string): Promise<IdentityRecord | null> {
    assertText(issuer, 'issuer');
    assertText(subject, 'subject');
    const macs = await this.forms.lookupMacs(unit, await this.context(unit), federationSubjectKey(issuer, subject));
    const binding = await liveFederationBinding(unit.sql, macs);
    if (!binding) return null;
    await this.recordUse(unit, binding.identityId, () =>
      touchFederationBinding(unit.sql, binding.bindingId, this.clock.now()),
    );
    return this.get(unit, binding.identityId);
  }

  async get(unit: TenantUnit, internalIdentityId: string): Promise<IdentityRecord | null> {
    if (!isUuid(internalIdentityId)) return null;
    return (await this.load(unit, [internalIdentityId]))[0] ?? null;
  }

  async createIdentity(
    unit: TenantUnit,
    input: { claims: Record<string, unknown>; assurance: Assurance },
  ): Promise<IdentityRecord> {
    assertClaims(input.claims);
    assertAssurance(input.assurance);
    const context = await this.context(unit, 'write');
    const id = randomUUID();
    const now = this.clock.now();
    const current = await this.forms.claims(unit, context.current, id, input.claims);
    const next = context.next ? await this.forms.claims(unit, context.next, id, input.claims) : null;
    const { acr, amr } = input.assurance;
    await insertIdentity(unit.sql, { id, sealed: current.sealed, nextSealed: next?.sealed ?? null, acr, amr, now });
    await insertIdentifiers(
      unit.sql,
      [...current.identifiers, ...(next?.identifiers ?? [])].map((f) => ({ ...f, identityId: id })),
    );
    return {
      internalIdentityId: id,
      claims: JSON.parse(JSON.stringify(input.claims)) as Record<string, unknown>,
      assurance: { acr, amr: [...amr] },
      bindings: { walletBound: false, federationBound: false, lastAuthenticatedAt: null },
      createdAt: now.toISOString(),
    };
  }

  async updateClaims(unit: TenantUnit, internalIdentityId: string, claims: Record<string, unknown>): Promise<void> {
    assertClaims(claims);
    const context = await this.context(unit, 'write');
    await this.lockExisting(unit, internalIdentityId);
    const current = await this.forms.claims(unit, context.current, internalIdentityId, claims);
    const next = context.next ? await this.forms.claims(unit, context.next, internalIdentityId, claims) : null;
    await replaceClaims(unit.sql, internalIdentityId, current.sealed, next?.sealed ?? null, this.clock.now());
    await deleteClaimIdentifiers(unit.sql, internalIdentityId);
    await insertIdentifiers(
      unit.sql,
      [...current.identifiers, ...(next?.identifiers ?? [])].map((f) => ({ ...f, identityId: internalIdentityId })),
    );
  }

  async bindWallet(unit: TenantUnit, internalIdentityId: string, holderKey: string): Promise<void> {
    assertText(holderKey, 'holderKey');
    const context = await this.context(unit, 'write');
    await this.lockExisting(unit, internalIdentityId);
    const macs = await this.forms.lookupMacs(unit, context, holderKey);
    const held = await liveWalletBinding(unit.sql, macs);
    if (held) return assertSameIdentity(held.identityId, internalIdentityId, 'wallet holder key');
    await unindexSoftDeletedHolder(unit.sql, macs);
    const bindingId = randomUUID();
    const current = await this.forms.wallet(unit, context.current, bindingId, holderKey, true);
    const next = context.next ? await this.forms.wallet(unit, context.next, bindingId, holderKey, true) : null;
    await insertWalletBinding(unit.sql, {
      bindingId,
      identityId: internalIdentityId,
      sealed: current.sealed,
      nextSealed: next?.sealed ?? null,
      now: this.clock.now(),
    });
    const rows = [...current.identifiers, ...(next?.identifiers ?? [])];
    const inserted = await insertIdentifiers(
      unit.sql,
      rows.map((f) => ({ ...f, identityId: internalIdentityId })),
    );
    if (inserted === rows.length) return;
    // A concurrent transaction bound the same key first (the unique KEY index kept ours out): undo and answer as
    // if we had seen it.
    await deleteWalletBinding(unit.sql, bindingId);
    const winner = await liveWalletBinding(
      unit.sql,
      rows.map((r) => r.mac),
    );
    assertSameIdentity(winner?.identityId ?? null, internalIdentityId, 'wallet holder key');
  }

  async bindFederation(unit: TenantUnit, internalIdentityId: string, issuer: string, subject: string): Promise<void> {
    assertText(issuer, 'issuer');
    assertText(subject, 'subject');
    const context = await this.context(unit, 'write');
    await this.lockExisting(unit, internalIdentityId);
    const macs = await this.forms.lookupMacs(unit, context, federationSubjectKey(issuer, subject));
    const held = await liveFederationBinding(unit.sql, macs);
    if (held) return assertSameIdentity(held.identityId, internalIdentityId, 'federation subject');
    const bindingId = randomUUID();
    const current = await this.forms.federation(unit, context.current, bindingId, issuer, subject);
    const next = context.next ? await this.forms.federation(unit, context.next, bindingId, issuer, subject) : null;
    const inserted = await insertFederationBinding(unit.sql, {
      bindingId,
      identityId: internalIdentityId,
      issuer,
      mac: current.mac,
      sealed: current.sealed,
      next,
      now: this.clock.now(),
    });
    if (inserted) return;
    const winner = await liveFederationBinding(unit.sql, macs);
    assertSameIdentity(winner?.identityId ?? null, internalIdentityId, 'federation subject');
  }

  /** 000 §4.3 DELETE: the identity, its index rows and its bindings, in the caller's transaction. Idempotent. */
  async erase(unit: TenantUnit, internalIdentityId: string): Promise<void> {
    if (!isUuid(internalIdentityId)) return;
    await deleteIdentity(unit.sql, internalIdentityId);
  }

  private context(unit: TenantUnit, mode: 'read' | 'write' = 'read'): Promise<KeyContext> {
    return loadKeyContext(unit, this.crypto, this.clock.now(), mode);
  }

  private async lockExisting(unit: TenantUnit, internalIdentityId: string): Promise<void> {
    if (!isUuid(internalIdentityId) || !(await lockIdentity(unit.sql, internalIdentityId))) throw identityNotFound();
  }

  private async recordUse(unit: TenantUnit, identityId: string, touchBinding: () => Promise<void>): Promise<void> {
    await touchBinding();
    await touchIdentity(unit.sql, identityId, this.clock.now());
  }

  private async load(unit: TenantUnit, ids: readonly string[]): Promise<IdentityRecord[]> {
    const rows = await selectIdentities(unit.sql, ids);
    return Promise.all(rows.map((row) => this.toRecord(unit, row)));
  }

  private async toRecord(unit: TenantUnit, row: IdentityRow): Promise<IdentityRecord> {
    const claims = JSON.parse(
      await this.forms.openClaims(unit, row.internal_identity_id, row.encrypted_claims),
    ) as Record<string, unknown>;
    return {
      internalIdentityId: row.internal_identity_id,
      claims,
      assurance: { acr: row.acr, amr: row.amr },
      bindings: {
        walletBound: row.wallet_bound,
        federationBound: row.federation_bound,
        lastAuthenticatedAt: row.last_authenticated_at === null ? null : toIso(row.last_authenticated_at),
      },
      createdAt: toIso(row.created_at),
    };
  }
}

/**
 * 000 §4.3: the client's hash is base64url, without padding, of an HMAC-SHA256 under the shared key of the
 * identifier's UTF-8 bytes; it is compared with the stored MACs as is. While a key migration is open, a hash under
 * the old key matches every record, and one under the new key the records already re-indexed (and those written
 * meanwhile); once it completes, only the new key's.
 */
function checkHashQuery(query: IdentifierHashQuery): void {
  assertIdentifierType(query.type);
  if (!isLookupHash(query.hash)) {
    throw new AppError(
      'invalid_request',
      'identifierHash must be the base64url form, without padding, of an HMAC-SHA256 (43 characters).',
      { field: 'identifierHash' },
    );
  }
}

function settle(fn: () => void): PromiseSettledResult<void> {
  try {
    fn();
    return { status: 'fulfilled', value: undefined };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

function assertIdentifierType(type: unknown): asserts type is IdentifierType {
  if (!isIdentifierType(type))
    throw new AppError('invalid_request', 'identifierType must be KEY, SERVICE_ID or EPPN.', {
      field: 'identifierType',
    });
}

function assertSameIdentity(holder: string | null, requested: string, what: string): void {
  if (holder !== requested) throw new AppError('conflict', `The ${what} is bound to another identity.`);
}

const identityNotFound = () => notFound('No identity exists with this id.', 'identity_not_found');

const toIso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
