import { describe, expect, it } from 'vitest';
import { circuitEffects, type CircuitEvent } from './circuit-effects.js';

const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);
const event = (destinationId: string, failed: boolean, s: number, tenantId = 'alpha'): CircuitEvent => ({
  tenantId,
  destinationId,
  failed,
  at: at(s),
});

describe('circuitEffects', () => {
  it('keeps only the failures after the last success of each destination', () => {
    expect(
      circuitEffects([
        event('a', true, 1),
        event('a', false, 2),
        event('a', true, 3),
        event('a', true, 4),
        event('b', true, 5),
        event('b', false, 6),
        event('c', true, 7),
        event('c', true, 8),
        event('a', true, 1, 'beta'),
      ]),
    ).toEqual([
      { tenantId: 'alpha', destinationId: 'a', close: true, failures: 2, failedAt: at(4) },
      { tenantId: 'alpha', destinationId: 'b', close: true, failures: 0, failedAt: undefined },
      { tenantId: 'alpha', destinationId: 'c', close: false, failures: 2, failedAt: at(8) },
      { tenantId: 'beta', destinationId: 'a', close: false, failures: 1, failedAt: at(1) },
    ]);
  });
});
