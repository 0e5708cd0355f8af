import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, refuseAuditStaging } from '@tessera/platform/testing';
import {
  initiated,
  institutionalUser,
  newWallet,
  startIdvBed,
  unknownHolderSession,
  type IdvBed,
} from './support/idv-bed.js';

/**
 * Issue 13 §7 for identity verification (000 §4.2, §3.2): initiate and submit commit their moves with the command's
 * audit event (and initiate's `idv_initiated`), staged in the same unit of work. When the database refuses the
 * command's event right after the change, the call answers 503 and no attempt was opened or aborted.
 */
describe.each(DATABASE_KINDS)('IDV steps and their audit events in one commit (%s)', (kind) => {
  let bed: IdvBed;
  let lift: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    bed = await startIdvBed(kind, [institutionalUser('atomic')]);
  });
  afterAll(async () => bed?.close());
  beforeEach(() => bed.clock.set(new Date()));
  afterEach(async () => {
    await lift?.();
    lift = null;
  });

  const refuse = async (commandId: string) => {
    lift = await refuseAuditStaging(bed.bed.t.platform.db, { commandId });
  };
  const allow = async () => {
    await lift?.();
    lift = null;
  };
  const attempts = async (sessionId: string) =>
    (
      await bed.bed.t.platform.db.withTenant('demo', (sql) =>
        sql.query<{ status: string }>(
          'SELECT status FROM bridge_idv_reconciliations WHERE session_id = $1 ORDER BY created_at',
          [sessionId],
        ),
      )
    ).rows.map((r) => r.status);
  const eventsOf = async (sessionId: string) =>
    (await bed.bed.t.platform.audit.query({ tenantId: 'demo', limit: 1000 })).events
      .filter((e) => e.businessIds.sessionId === sessionId)
      .map((e) => (e.commandId ? `${e.type}:${e.commandId}:${e.result}` : `${e.type}:${e.result}`));

  it('initiate: a refused event opens no attempt; the retry opens one, with its events', async () => {
    const sessionId = await unknownHolderSession(bed, await newWallet(bed));
    await refuse('bridge.idv.initiate');
    expect((await bed.idv.initiate(sessionId)).statusCode).toBe(503);
    expect(await attempts(sessionId)).toEqual([]);
    await allow();
    await initiated(bed, sessionId);
    expect(await attempts(sessionId)).toEqual(['REDIRECTED']);
    expect(await eventsOf(sessionId)).toEqual(
      expect.arrayContaining([
        'command.executed:bridge.idv.initiate:failure',
        'command.executed:bridge.idv.initiate:success',
        'idv_initiated:success',
      ]),
    );
  });

  it('submit confirmed false: a refused event leaves the attempt open; the retry aborts it, with its events', async () => {
    const sessionId = await unknownHolderSession(bed, await newWallet(bed));
    await initiated(bed, sessionId);
    await refuse('bridge.idv.submit');
    expect((await bed.idv.submit(sessionId, { confirmed: false })).statusCode).toBe(503);
    expect(await attempts(sessionId)).toEqual(['REDIRECTED']);
    expect(await eventsOf(sessionId)).not.toContain('session_failed:failure');
    await allow();
    expect((await bed.idv.submit(sessionId, { confirmed: false })).body.reconciliationStatus).toBe('ERROR');
    expect(await attempts(sessionId)).toEqual(['ERROR']);
    expect(await eventsOf(sessionId)).toEqual(
      expect.arrayContaining(['command.executed:bridge.idv.submit:success', 'session_failed:failure']),
    );
  });
});
