import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { createStatusEntryAllocator, type StatusEntryAllocator } from '../src/index.js';
import { BASE_URL, createList, published, setStatus, startBed, TENANT, type Bed } from './support.js';

/** Issue 16 §6: the in-process interface the issuance context calls for each credential it issues. */
describe.each(DATABASE_KINDS)('allocateStatusEntry (%s)', (kind) => {
  let bed: Bed;
  let allocator: StatusEntryAllocator;

  beforeAll(async () => {
    bed = await startBed(kind);
    allocator = createStatusEntryAllocator(bed.t.platform, bed.config);
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('allocates in a list the tenant created', async () => {
    await createList(bed, 'for-issuance');
    const entry = await allocator.allocateStatusEntry(TENANT, { listId: 'for-issuance' });
    expect(entry).toEqual({
      listId: 'for-issuance',
      index: expect.any(Number),
      uri: `${BASE_URL}/status-lists/for-issuance`,
      status: { status_list: { idx: entry.index, uri: `${BASE_URL}/status-lists/for-issuance` } },
    });
    await setStatus(bed, 'for-issuance', entry.index, 'invalid');
    expect(getListFromStatusListJWT(await published(bed, 'for-issuance')).getStatus(entry.index)).toBe(1);
  });

  it('creates the series of a configuration on first use, then keeps allocating in it, concurrently too', async () => {
    const config = { type: 'BitstringStatusList' as const, statusPurpose: 'revocation' as const, length: 64 };
    const entries = await Promise.all(Array.from({ length: 40 }, () => allocator.allocateStatusEntry(TENANT, config)));
    const listId = 'issuance-BitstringStatusList-revocation-1';
    expect(new Set(entries.map((e) => e.listId))).toEqual(new Set([listId]));
    expect(new Set(entries.map((e) => e.index)).size).toBe(40);
    expect(entries[0]!.credentialStatus).toMatchObject({
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListCredential: `${BASE_URL}/status-lists/${listId}`,
    });
    const page = await bed.t.platform.audit.query({
      tenantId: TENANT,
      principalId: 'status-lists:issuance',
      limit: 500,
    });
    const commands = page.events.map((e) => e.commandId);
    expect(commands.filter((c) => c === 'status-list.allocate-entry').length).toBeGreaterThanOrEqual(40);
    expect(commands.filter((c) => c === 'status-list.create').length).toBeGreaterThanOrEqual(1);
  });

  it('runs in the tenant it is given', async () => {
    const entry = await allocator.allocateStatusEntry('other', { type: 'OAuthStatusList' });
    expect(entry.listId).toBe('issuance-OAuthStatusList-revocation-1');
    const foreign = await allocator.allocateStatusEntry(TENANT, { listId: 'for-issuance' });
    expect(foreign.listId).toBe('for-issuance');
    await expect(allocator.allocateStatusEntry('other', { listId: 'for-issuance' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
