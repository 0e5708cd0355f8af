import { generateKeyPairSync } from 'node:crypto';
import type { Clock, KeyManager, Sql } from '@tessera/platform';
import { describe, expect, it } from 'vitest';
import type { SoftwareKeyRow } from '../storage/software-key-rows.js';
import { SoftwareKeyProvider } from './software-provider.js';

/**
 * The software provider keeps keys it found by provider kid (rows are never updated or deleted): a found key is
 * answered without reading the table again, per tenant, and absence is never kept (a key made later is found).
 */
function fakeTable() {
  const rows = new Map<string, SoftwareKeyRow>();
  let reads = 0;
  const sql = {
    query: async (_text: string, params: unknown[]) => {
      reads++;
      const row = rows.get(params[0] as string);
      return { rows: row ? [row] : [], rowCount: row ? 1 : 0 };
    },
  } as unknown as Sql;
  return { rows, sql, reads: () => reads };
}

describe('software key provider: found keys', () => {
  const provider = new SoftwareKeyProvider({} as KeyManager, { now: () => new Date() } as Clock);
  const spki = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' });

  it('reads a missing key again, and a found one only once per tenant', async () => {
    const table = fakeTable();
    const unit = { tenantId: 'tenant-a', sql: table.sql };
    expect(await provider.findKey(unit, 'kid-1')).toBeNull();
    table.rows.set('kid-1', {
      provider_kid: 'kid-1',
      key_type: 'EC_P256',
      public_key_spki: spki.toString('base64'),
      sealed_private_key: 'sealed',
    });
    const found = await provider.findKey(unit, 'kid-1');
    expect(found).toEqual({ providerKid: 'kid-1', keyKind: 'EC', publicKeySpki: spki });
    expect(await provider.findKey(unit, 'kid-1')).toEqual(found);
    expect(table.reads()).toBe(2);
    // Another tenant reads its own table (row-level security decides what it sees).
    const other = fakeTable();
    expect(await provider.findKey({ tenantId: 'tenant-b', sql: other.sql }, 'kid-1')).toBeNull();
    expect(other.reads()).toBe(1);
  });
});
