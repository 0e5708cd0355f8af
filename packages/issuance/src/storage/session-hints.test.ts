import { describe, expect, it } from 'vitest';
import { initialSession } from '../domain/session-machine.js';
import { SessionHints } from './session-hints.js';
import type { SessionRow } from './session-store.js';

const row = (correlationId: string): SessionRow => ({
  id: `id-${correlationId}`,
  correlationId,
  pipeline: { pipelineId: 'p' } as SessionRow['pipeline'],
  encryptionMode: 'TENANT_ENVELOPE',
  state: initialSession(),
  failureReason: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  expiresAt: new Date(1),
  presentRequiredPaths: [],
});

describe('SessionHints', () => {
  it('keeps one row per tenant and correlation id, the latest set', () => {
    const hints = new SessionHints();
    hints.set('a', row('c1'));
    hints.set('a', { ...row('c1'), presentRequiredPaths: ['x'] });
    expect(hints.get('a', 'c1')?.presentRequiredPaths).toEqual(['x']);
    expect(hints.get('b', 'c1')).toBeUndefined();
    hints.forget('a', 'c1');
    expect(hints.get('a', 'c1')).toBeUndefined();
  });

  it('drops the least recently set row beyond its capacity', () => {
    const hints = new SessionHints(2);
    hints.set('a', row('c1'));
    hints.set('a', row('c2'));
    hints.set('a', row('c1'));
    hints.set('a', row('c3'));
    expect(hints.size).toBe(2);
    expect(hints.get('a', 'c2')).toBeUndefined();
    expect(hints.get('a', 'c1')?.correlationId).toBe('c1');
    expect(hints.get('a', 'c3')?.correlationId).toBe('c3');
  });
});
