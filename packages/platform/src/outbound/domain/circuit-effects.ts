/** One attempt's effect on its destination's circuit: an answer (closes) or a failure (counts). */
export interface CircuitEvent {
  tenantId: string;
  destinationId: string;
  failed: boolean;
  at: Date;
}

export interface CircuitEffect {
  tenantId: string;
  destinationId: string;
  /** Some attempt succeeded: the circuit closes and its count starts again. */
  close: boolean;
  /** Failures after the last success (or all of them, when none succeeded), counted after the close. */
  failures: number;
  /** When the last of those failures happened (the circuit's `opened_at` if they open it). */
  failedAt: Date | undefined;
}

/**
 * Folds the outcomes written together, in the order they happened, into one change per destination, the same as
 * writing them one by one (a success resets the count, so only the failures after the last success remain).
 */
export function circuitEffects(events: readonly CircuitEvent[]): CircuitEffect[] {
  const effects = new Map<string, CircuitEffect>();
  for (const event of events) {
    const key = `${event.tenantId}/${event.destinationId}`;
    let effect = effects.get(key);
    if (!effect) {
      effect = {
        tenantId: event.tenantId,
        destinationId: event.destinationId,
        close: false,
        failures: 0,
        failedAt: undefined,
      };
      effects.set(key, effect);
    }
    if (event.failed) {
      effect.failures++;
      effect.failedAt = event.at;
    } else {
      effect.close = true;
      effect.failures = 0;
      effect.failedAt = undefined;
    }
  }
  return [...effects.values()];
}
