import type { Scenario, ScenarioGoal } from './types.js';

export interface Plan {
  /** Scenarios in run order: every baseline (and every scenario a goal is read against) before its users. */
  scenarios: Scenario[];
  /** Baselines and goal references run although `--only` did not name them. */
  addedBaselines: string[];
}

/** A scenario's goals as a list (none, one, or several). */
export function goalsOf(scenario: Pick<Scenario, 'goal'>): readonly ScenarioGoal[] {
  if (!scenario.goal) return [];
  return Array.isArray(scenario.goal) ? scenario.goal : [scenario.goal as ScenarioGoal];
}

/** The scenario a goal is read against: its own `against`, else the scenario's baseline. */
export function goalReference(scenario: Pick<Scenario, 'baseline'>, goal: ScenarioGoal): string | undefined {
  return goal.against ?? scenario.baseline;
}

/** The scenarios that must be measured before this one: its baseline and the references of its goals. */
export function dependenciesOf(scenario: Scenario): string[] {
  const names = [scenario.baseline, ...goalsOf(scenario).map((g) => g.against)];
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/** Checks the registry: unique names, known baselines, no scenario compared with itself through a chain. */
export function validateRegistry(registry: readonly Scenario[]): void {
  const names = new Set<string>();
  for (const s of registry) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(s.name)) throw new Error(`scenario name "${s.name}" is not kebab-case`);
    if (names.has(s.name)) throw new Error(`two scenarios are named "${s.name}"`);
    names.add(s.name);
    for (const goal of goalsOf(s)) {
      if (!(goal.minRatio > 0)) throw new Error(`scenario "${s.name}": goal.minRatio must be > 0`);
      if (!goalReference(s, goal))
        throw new Error(`scenario "${s.name}" has a goal but no baseline to measure it against`);
    }
    if (s.concurrency !== undefined && !(Number.isInteger(s.concurrency) && s.concurrency >= 1))
      throw new Error(`scenario "${s.name}": concurrency must be a whole number >= 1`);
  }
  const byName = new Map(registry.map((s) => [s.name, s]));
  // Depth-first over baselines and goal references: every name known, no scenario depending on itself.
  const done = new Set<string>();
  const visit = (s: Scenario, chain: string[]): void => {
    if (done.has(s.name)) return;
    for (const dep of dependenciesOf(s)) {
      const next = byName.get(dep);
      if (!next) {
        const what = dep === s.baseline ? 'baseline' : 'goal reference';
        throw new Error(`scenario "${s.name}" names an unknown ${what} "${dep}"`);
      }
      if (chain.includes(next.name)) throw new Error(`baseline cycle: ${[...chain, next.name].join(' -> ')}`);
      visit(next, [...chain, next.name]);
    }
    done.add(s.name);
  };
  for (const s of registry) visit(s, [s.name]);
}

/**
 * The scenarios to run for `--only` (all when null), with their baselines and goal references added, in registry
 * order except that a scenario's dependencies always come before it.
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
  const pending = [...wanted];
  while (pending.length > 0) {
    for (const dep of dependenciesOf(byName.get(pending.pop()!)!)) {
      if (wanted.has(dep)) continue;
      wanted.add(dep);
      added.push(dep);
      pending.push(dep);
    }
  }
  const ordered: Scenario[] = [];
  const placed = new Set<string>();
  const place = (s: Scenario): void => {
    if (placed.has(s.name)) return;
    for (const dep of dependenciesOf(s)) place(byName.get(dep)!);
    placed.add(s.name);
    ordered.push(s);
  };
  for (const s of registry) if (wanted.has(s.name)) place(s);
  return { scenarios: ordered, addedBaselines: added };
}
