import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineCommand } from '../commands/command.js';
import { createTestPlatform, DATABASE_KINDS, type TestPlatform } from '../testing/index.js';
import { createLogger } from '../observability/logger.js';
import { AuditRedaction, type RedactableEvent } from './redaction.js';

const KEY = Buffer.alloc(32, 9);
const event = (over: Partial<RedactableEvent> = {}): RedactableEvent => ({
  tenantId: 'alpha',
  type: 'command.executed',
  commandId: 'bridge.sessions.complete',
  businessIds: { sessionId: 's-123', subject: 'alice@uni.example' },
  details: { email: 'alice@uni.example', nested: { phone: '+31612345678', keep: 1 }, reason: 'ok' },
  ...over,
});

describe('AuditRedaction rules (issue 15 §4)', () => {
  it('drops a field', () => {
    const e = event();
    new AuditRedaction([{ fields: ['details.email', 'businessIds.subject'], action: 'drop' }], KEY).apply(e);
    expect(e.details).toEqual({ nested: { phone: '+31612345678', keep: 1 }, reason: 'ok' });
    expect(e.businessIds).toEqual({ sessionId: 's-123' });
  });

  it('masks a field, keeping only the last two characters of a long string', () => {
    const e = event({ details: { phone: '+31612345678', pin: '1234', count: 7 } });
    new AuditRedaction([{ fields: ['details.*'], action: 'mask' }], KEY).apply(e);
    expect(e.details).toEqual({ phone: '****78', pin: '****', count: '****' });
  });

  it('hashes a field under the tenant key: stable within a tenant, different across tenants, not the value', () => {
    const rules = new AuditRedaction(
      [{ fields: ['details.nested.phone', 'businessIds.subject'], action: 'hash' }],
      KEY,
    );
    const a1 = event();
    const a2 = event();
    const b = event({ tenantId: 'beta' });
    for (const e of [a1, a2, b]) rules.apply(e);
    const phone = (e: RedactableEvent) => (e.details.nested as Record<string, unknown>).phone;
    expect(phone(a1)).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(phone(a1)).toBe(phone(a2));
    expect(phone(b)).not.toBe(phone(a1));
    expect(a1.businessIds.subject).not.toContain('alice');
    expect((a1.details.nested as Record<string, unknown>).keep).toBe(1);
  });

  it('applies a rule only to the commands and event types it names (prefix.* too)', () => {
    const rules = new AuditRedaction(
      [
        { commands: ['bridge.*'], fields: ['details.email'], action: 'drop' },
        { eventTypes: ['idv_initiated'], fields: ['details.reason'], action: 'mask' },
      ],
      KEY,
    );
    const bridge = event();
    const token = event({ commandId: 'token.refresh' });
    const idv = event({ commandId: null, type: 'idv_initiated' });
    for (const e of [bridge, token, idv]) rules.apply(e);
    expect(bridge.details.email).toBeUndefined();
    expect(token.details.email).toBe('alice@uni.example');
    expect(idv.details.email).toBe('alice@uni.example');
    expect(idv.details.reason).toBe('****');
    expect(bridge.details.reason).toBe('ok');
  });

  it('refuses a field path outside details and businessIds', () => {
    for (const field of ['principalId', 'details', 'businessIds.a.b', 'details..x'])
      expect(() => new AuditRedaction([{ fields: [field], action: 'drop' }], KEY)).toThrow(/audit\.redaction/);
  });
});

describe.each(DATABASE_KINDS)('audit redaction in the platform (%s)', (kind) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await createTestPlatform(kind, {
      overrides: {
        audit: {
          redaction: [
            { commands: ['test.redaction.*'], fields: ['businessIds.email'], action: 'hash' },
            { commands: ['test.redaction.*'], fields: ['details.policy'], action: 'mask' },
            { eventTypes: ['gdpr_erasure'], fields: ['details.subject'], action: 'drop' },
            { eventTypes: ['gdpr_erasure'], fields: ['businessIds.*'], action: 'mask' },
          ],
        },
      },
    });
  });
  afterAll(async () => t?.close());

  it('stores command and context events redacted, and the chain hashes the redacted form', async () => {
    const tenantId = 'demo';
    const command = defineCommand<{ email: string }, { ok: true }>({
      id: 'test.redaction.run',
      access: 'public',
      businessIds: (input) => ({ email: input.email }),
      run: async () => ({ ok: true }),
    });
    const ctx = {
      tenantId,
      principal: null,
      correlationId: randomUUID(),
      trace: null,
      log: createLogger({ level: 'silent', service: 'test' }),
    };
    await t.platform.commands.execute(command, ctx, { email: 'carol@uni.example' });
    // An event a context writes itself (as the bridge's erasure does).
    await t.platform.audit.append({
      tenantId,
      type: 'gdpr_erasure',
      result: 'success',
      businessIds: { identityId: 'identity-42-long' },
      details: { subject: 'carol@uni.example', count: 3 },
    });
    const events = (await t.platform.audit.query({ tenantId, limit: 500 })).events;
    const executed = events.find((e) => e.commandId === 'test.redaction.run')!;
    expect(executed.businessIds.email).toMatch(/^hmac-sha256:/);
    expect(executed.details.policy).toBe('****'); // 'public': six characters, nothing kept
    const erasure = events.find((e) => e.type === 'gdpr_erasure')!;
    expect(erasure.details).toEqual({ count: 3 });
    expect(erasure.businessIds).toEqual({ identityId: '****ng' });
    expect(JSON.stringify(events)).not.toContain('carol@uni.example');
    expect(await t.platform.audit.verify(tenantId)).toMatchObject({ ok: true });
  });
});
