import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { exportSharedHmacKey } from '../src/commands/export-shared-hmac-key.js';
import { assurance, openHarness, RecordingAudit, type Harness } from './support.js';
import { ISSUER, newRunner } from './seed.js';

/** Every spelling of a value an intruder might search a dump for. */
const spellings = (value: string) => [
  value,
  Buffer.from(value).toString('base64'),
  Buffer.from(value).toString('base64url'),
  Buffer.from(value).toString('hex'),
];

const TABLES = [
  'identities',
  'identity_identifiers',
  'wallet_bindings',
  'federation_bindings',
  'key_migrations',
  'identity_key_state',
];

describe.each(DATABASE_KINDS)('what the identity tables hold (%s)', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await openHarness(kind, 'tenant-a', 'tenant-b');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('holds no claim value, identifier, holder key or federation subject in any column, nor any key', async () => {
    const secrets: string[] = [];
    for (const tenantId of ['tenant-a', 'tenant-b']) {
      for (let i = 0; i < 3; i++) {
        const claims = {
          service_id: `Svc-${tenantId}-${i}-q7`,
          eduperson_principal_name: `eppn-${tenantId}-${i}@campus.test`,
          email: `mail-${tenantId}-${i}@inbox.test`,
          family_name: `Lovelace-${tenantId}-${i}`,
        };
        const holderKey = `did:jwk:eyJrdHkiOiJFQyIsImNydiI6IlAtMjU2In0-${tenantId}-${i}`;
        const subject = `fed-subject-${tenantId}-${i}`;
        secrets.push(...Object.values(claims), holderKey, subject);
        await h.unit(tenantId, async (u) => {
          const identity = await h.store.createIdentity(u, { claims, assurance });
          await h.store.bindWallet(u, identity.internalIdentityId, holderKey);
          await h.store.bindFederation(u, identity.internalIdentityId, ISSUER, subject);
        });
      }
    }
    // Mid-migration too: the forms under the new keys are sealed and MACed like the current ones.
    const stop = new AbortController();
    await newRunner(h, { audit: new RecordingAudit(), batchSize: 2, afterBatch: () => stop.abort() }).start(
      'tenant-a',
      {
        signal: stop.signal,
      },
    );
    for (const tenantId of ['tenant-a', 'tenant-b']) {
      secrets.push((await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, tenantId)).key);
    }
    secrets.push((await exportSharedHmacKey({ db: h.t.db, keys: h.keys, clock: h.clock }, 'tenant-a', 'next')).key);

    // Every column of every row, as text, read as the database superuser (no row-level security).
    let dump = '';
    for (const table of TABLES) {
      const rows = await h.superuser(`SELECT t::text AS row FROM ${table} t`);
      expect(rows.length).toBeGreaterThan(0);
      dump += rows.map((r) => String(r.row)).join('\n');
    }
    dump += (await h.superuser(`SELECT t::text AS row FROM kms_symmetric_keys t`)).map((r) => String(r.row)).join('\n');
    const lower = dump.toLowerCase();
    for (const secret of secrets) {
      for (const spelling of spellings(secret)) expect(lower).not.toContain(spelling.toLowerCase());
    }
    // What is there instead: sealed envelopes and 43-character MACs.
    const identities = await h.superuser(`SELECT encrypted_claims, next_encrypted_claims FROM identities`);
    for (const row of identities)
      expect(String(row.encrypted_claims)).toMatch(/^e1\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){4}$/);
    const macs = await h.superuser(`SELECT mac FROM identity_identifiers`);
    for (const row of macs) expect(String(row.mac)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
