import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/commands/command.js';
import { ROTATE_SIGNING_KEY, rotateSigningKeyCommand } from '../src/keys/commands/rotate-signing-key.js';
import { DATABASE_KINDS, createTestPlatform, refuseAuditStaging, type TestPlatform } from '../src/testing/index.js';

/**
 * Issue 13 §7 for the key manager's write: a signing-key rotation commits with its audit event. Refused at the
 * event, the rotation answers an error and did not happen (the same key signs, no new version), so that the
 * operator's retry rotates exactly once; the process signs with the new version as soon as a rotation commits.
 */
describe.each(DATABASE_KINDS)('signing-key rotation and its audit event (%s)', (kind) => {
  let t: TestPlatform;
  const alias = 'rotation-atomic';
  const ctx = (): CommandContext => ({
    tenantId: 'alpha',
    principal: {
      id: 'operator',
      kind: 'user',
      tenantId: 'alpha',
      roles: ['platform-admin'],
      scopes: [],
      clientId: null,
      issuer: null,
    },
    correlationId: randomUUID(),
    trace: null,
    log: t.platform.logger,
  });
  const versions = async () => (await t.platform.keys.list()).filter((k) => k.alias === alias);
  const signingKid = async () => (await t.platform.keys.sign(alias, Buffer.from('x'))).kid;

  beforeAll(async () => {
    t = await createTestPlatform(kind);
    await t.platform.tenants.ensure({ id: 'alpha', displayName: 'Alpha' });
    await t.platform.keys.ensure(alias, 'ES256');
  });
  afterAll(() => t?.close());

  it('a refused rotation changes no key; the retry rotates once and signs with the new version at once', async () => {
    const before = await versions();
    const kid = await signingKid();
    const lift = await refuseAuditStaging(t.platform.db, ROTATE_SIGNING_KEY);
    try {
      await expect(
        t.platform.commands.execute(rotateSigningKeyCommand(t.platform.keys), ctx(), { alias }),
      ).rejects.toMatchObject({ code: 'service_unavailable' });
    } finally {
      await lift();
    }
    expect(await versions()).toEqual(before);
    expect(await signingKid()).toBe(kid);

    const rotated = await t.platform.commands.execute(rotateSigningKeyCommand(t.platform.keys), ctx(), { alias });
    expect(rotated.retired).toBe(kid);
    expect(await versions()).toHaveLength(before.length + 1);
    expect(await signingKid()).toBe(rotated.active.kid);
    const { events } = await t.platform.audit.query({ tenantId: 'alpha', commandId: ROTATE_SIGNING_KEY });
    expect(events.map((e) => e.result)).toEqual(['failure', 'success']);
    expect(events[1]!.businessIds).toMatchObject({ alias, retiredKid: kid, activeKid: rotated.active.kid });
  });
});
