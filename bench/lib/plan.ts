import type { Scenario } from './types.js';

export interface Plan {
  /** Scenarios in run order: every baseline before the scenarios compared with it. */
  scenarios: Scenario[];
  /** Baselines run although `--only` did not name them. */
  addedBaselines: string[];
}

/** Checks the registry: unique names, known baselines, no scenario compared with itself through a chain. */
export function validateRegistry(registry: readonly Scenario[]): void {
  const names = new Set<string>();
  for (const s of registry) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(s.name)) throw new Error(`scenario name "${s.name}" is not kebab-case`);
    if (names.has(s.name)) throw new Error(`two scenarios are named "${s.name}"`);
    names.add(s.name);
    if (s.goal && !(s.goal.minRatio > 0)) throw new Error(`scenario "${s.name}": goal.minRatio must be > 0`);
    if (s.goal && !s.baseline) throw new Error(`scenario "${s.name}" has a goal but no baseline to measure it against`);
  }
  const byName = new Map(registry.map((s) => [s.name, s]));
  for (const s of registry) {
    const chain = [s.name];
    let current = s;
    while (current.baseline) {
      const next = byName.get(current.baseline);
      if (!next) throw new Error(`scenario "${current.name}" names an unknown baseline "${current.baseline}"`);
      if (chain.includes(next.name)) throw new Error(`baseline cycle: ${[...chain, next.name].join(' -> ')}`);
      chain.push(next.name);
      current = next;
    }
  }
}

/**
 * The scenarios to run for `--only` (all when null), with their baselines added, in registry order except that
 * a baseline always comes before the scenarios that use it.
 */
export function planRun(registry: readonly Scenario[], only: string[] | null): Plan {
  validateRegistry(registry);
  const byName = new Map(registry.map((s) => [s.name, s]));
  const unknown = (only ?? []).filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (known: ${registry.map((s) => s.name).join(', ')})`,
    );
  }
  const wanted = new Set(only ?? registry.map((s) => s.name));
  const added: string[] = [];
  for (const name of [...wanted]) {
    let s = byName.get(name)!;
    while (s.baseline) {
      if (!wanted.has(s.baseline)) {
        wanted.add(s.baseline);
        added.push(s.baseline);
      }
      s = byName.get(s.baseline)!;
    }
  }
  const ordered: Scenario[] = [];
  const placed = new Set<string>();
  const place = (s: Scenario): void => {
    if (placed.has(s.name)) return;
    if (s.baseline) place(byName.get(s.baseline)!);
    placed.add(s.name);
    ordered.push(s);
  };
  for (const s of registry) if (wanted.has(s.name)) place(s);
  return { scenarios: ordered, addedBaselines: added };
}
