import { readFileSync } from 'node:fs';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) that the summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  /** Milliseconds. */
  self: number;
  /** Milliseconds, including callees (a recursive function is counted once per sample). */
  total: number;
  /** Share of the busy time (all samples except idle). */
  selfShare: number;
  totalShare: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  /** By function (name and location). */
  functions: ProfileEntry[];
  /** By package: `node_modules/<pkg>`, `node:` internals, repository file, or the V8 pseudo-nodes (gc, program). */
  packages: ProfileEntry[];
}

const PSEUDO = new Set(['(garbage collector)', '(program)', '(root)']);

/** Where a frame's code lives, coarse enough to tell the platform from Fastify, pino, prom-client and Node itself. */
export function packageOf(url: string, functionName: string, repoRoot = ''): string {
  if (PSEUDO.has(functionName) || functionName === '(idle)') return functionName;
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  return repoRoot && path.startsWith(repoRoot) ? path.slice(repoRoot.length) : path;
}

/** Self and inclusive time per function and per package of one profile; idle time is reported apart. */
export function summarizeProfile(profile: CpuProfile, repoRoot = ''): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fnKey = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? ` ${packageOf(url, functionName, repoRoot)}:${lineNumber + 1}` : '';
    return `${functionName || '(anonymous)'}${where}`;
  };
  const pkgKey = (id: number) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    return packageOf(url, functionName, repoRoot);
  };
  const fnSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  const pkgTotal = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    busy += ms;
    add(fnSelf, fnKey(id), ms);
    add(pkgSelf, pkgKey(id), ms);
    const seenFn = new Set<string>();
    const seenPkg = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = fnKey(at);
      const p = pkgKey(at);
      if (!seenFn.has(f)) {
        seenFn.add(f);
        add(fnTotal, f, ms);
      }
      if (!seenPkg.has(p)) {
        seenPkg.add(p);
        add(pkgTotal, p, ms);
      }
    }
  }
  const entries = (self: Map<string, number>, total: Map<string, number>): ProfileEntry[] =>
    [...total.keys()]
      .filter((k) => k !== '(root)')
      .map((name) => {
        const s = self.get(name) ?? 0;
        const t = total.get(name) ?? 0;
        return { name, self: s, total: t, selfShare: busy ? s / busy : 0, totalShare: busy ? t / busy : 0 };
      })
      .sort((a, b) => b.self - a.self);
  return { busyMs: busy, idleMs: idle, functions: entries(fnSelf, fnTotal), packages: entries(pkgSelf, pkgTotal) };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Text of the summary: the top entries by self time, then the heaviest by inclusive time. */
export function formatProfile(summary: ProfileSummary, top = 20): string {
  const pct = (n: number) => `${(n * 100).toFixed(1).padStart(5)}%`;
  const row = (e: ProfileEntry) => `  ${pct(e.selfShare)} self  ${pct(e.totalShare)} total  ${e.name}`;
  return [
    `busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`,
    'by package (self time):',
    ...summary.packages.slice(0, top).map(row),
    'by function (self time):',
    ...summary.functions.slice(0, top).map(row),
    'by function (inclusive time):',
    ...[...summary.functions]
      .sort((a, b) => b.total - a.total)
      .slice(0, top)
      .map(row),
  ].join('\n');
}

/** One entry of two profiles set side by side, in µs per operation (ProfileComparison). */
export interface ComparedEntry {
  name: string;
  /** µs per operation in the first profile, and in the second. */
  a: number;
  b: number;
}

/**
 * Two profiles of the same work (a scenario and its floor, or a change and the commit before it) set side by side.
 * Each profile's busy time is split by self time, then scaled to the CPU per operation the bench measured for its
 * run (`cpu us/op`, or the main thread's figure for the event loop alone): shares alone hide that one run did more
 * work per request than the other. Sorted by how much more the first spends, most first.
 */
export function compareProfiles(
  a: { summary: ProfileSummary; usPerOp: number },
  b: { summary: ProfileSummary; usPerOp: number },
  by: 'packages' | 'functions' = 'packages',
): ComparedEntry[] {
  const scaled = (side: { summary: ProfileSummary; usPerOp: number }) => {
    const out = new Map<string, number>();
    for (const e of side.summary[by]) if (e.self > 0) out.set(e.name, e.selfShare * side.usPerOp);
    return out;
  };
  const left = scaled(a);
  const right = scaled(b);
  return [...new Set([...left.keys(), ...right.keys()])]
    .map((name) => ({ name, a: left.get(name) ?? 0, b: right.get(name) ?? 0 }))
    .sort((x, y) => y.a - y.b - (x.a - x.b));
}

/** Text of a comparison: the `top` entries that grew most, then the `top` that shrank most. */
export function formatComparison(entries: ComparedEntry[], top = 25): string {
  const us = (n: number) => n.toFixed(1).padStart(8);
  const diff = (n: number) => `${n >= 0 ? '+' : '-'}${Math.abs(n).toFixed(1)}`.padStart(8);
  const row = (e: ComparedEntry) => `${us(e.a)}${us(e.b)}${diff(e.a - e.b)}  ${e.name}`;
  const grew = entries.filter((e) => e.a > e.b).slice(0, top);
  const shrank = entries
    .filter((e) => e.a < e.b)
    .slice(-top)
    .reverse();
  const total = (side: 'a' | 'b') => entries.reduce((sum, e) => sum + e[side], 0);
  return [
    `${'a'.padStart(8)}${'b'.padStart(8)}${'a - b'.padStart(8)}  (µs per operation, self time)`,
    `${us(total('a'))}${us(total('b'))}${diff(total('a') - total('b'))}  all`,
    'more in a:',
    ...grew.map(row),
    'less in a:',
    ...shrank.map(row),
  ].join('\n');
}
