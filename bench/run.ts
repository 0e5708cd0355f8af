import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli, UsageError, USAGE } from './lib/cli.js';
import { goalsOf, planRun } from './lib/plan.js';
import { abortActive, pinParent, runScenarios } from './lib/harness.js';
import { formatConfirmations } from './lib/confirm.js';
import {
  buildReport,
  formatAlerts,
  formatInterleaved,
  formatSpread,
  formatMainThread,
  formatTable,
  timestampFileName,
} from './lib/report.js';
import { formatProfile, readProfile, summarizeProfile } from './lib/profile.js';
import { REPO_ROOT } from './lib/http.js';
import { scenarios as registry } from './scenarios/index.js';
import { checkoutAgainst, comparedAgainst, type AgainstTree } from './lib/against.js';
import type { Scenario } from './lib/types.js';

/**
 * `npm run bench -- [--only a,b] [--duration s] [--connections n] [--json path]`: runs the named scenarios,
 * prints throughput, p50, p99 and the ratios to each scenario's baseline measured in the same run, and writes the
 * figures as JSON. A MISS is reported, not failed: the exit code is 1 only when a scenario could not be measured.
 */
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

async function main(): Promise<number> {
  let command;
  try {
    command = parseCli(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'list') {
    for (const s of registry) {
      const goals = goalsOf(s).map(
        (g) =>
          `, goal >= ${+(g.minRatio * 100).toFixed(1)}%${g.basis === 'per-core' ? ' per-core' : ''}${g.against && g.against !== s.baseline ? ` against ${g.against}` : ''}`,
      );
      const against = s.baseline ? `  (baseline ${s.baseline}${goals.join('')})` : '';
      process.stdout.write(`${s.name.padEnd(28)} ${s.kind.padEnd(4)}  ${s.description}${against}\n`);
    }
    return 0;
  }
  const options = command.options;
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  let against: AgainstTree | null = null;
  let plan;
  try {
    let scenarios: readonly Scenario[] = registry;
    let only = options.only;
    if (command.against !== null) {
      against = await checkoutAgainst(REPO_ROOT, command.against);
      const compared = comparedAgainst(registry, only, against);
      if (compared.notCompared.length > 0) progress(`not compared (cpu scenarios): ${compared.notCompared.join(', ')}`);
      if (compared.only.length === 0) throw new Error('--against: none of the scenarios named is an http scenario');
      progress(`against ${against.ref} (${against.commit.slice(0, 7)}), checked out in ${against.root}`);
      scenarios = compared.registry;
      only = compared.only;
    }
    plan = planRun(scenarios, only);
  } catch (error) {
    await against?.remove();
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  if (plan.addedBaselines.length > 0)
    progress(`adding baseline${plan.addedBaselines.length > 1 ? 's' : ''}: ${plan.addedBaselines.join(', ')}`);
  if (options.pin) {
    try {
      pinParent();
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      return 2;
    }
  }
  // Ctrl-C: stop the server being measured and remove its temporary directory before leaving.
  process.once('SIGINT', () => {
    progress('interrupted; stopping the scenario in progress');
    abortActive()
      .finally(() => against?.remove())
      .finally(() => process.exit(130));
  });

  const startedAt = new Date();
  const rows = await runScenarios(plan.scenarios, options, progress).finally(() => against?.remove());
  const report = buildReport(options, startedAt, new Date(), rows);

  const jsonPath = options.jsonPath ? resolve(options.jsonPath) : join(RESULTS_DIR, timestampFileName(startedAt));
  const latestPath = join(RESULTS_DIR, 'latest.json');
  const text = `${JSON.stringify(report, null, 2)}\n`;
  for (const path of new Set([jsonPath, latestPath])) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }

  const env = report.environment;
  process.stdout.write(
    `\nTessera benchmarks: ${env.node}, ${env.cpus} x ${env.cpuModel}; ${options.durationSeconds} s per scenario after ${options.warmupSeconds} s warm-up${options.pin ? ', pinned' : ''}\n\n`,
  );
  process.stdout.write(`${formatTable(rows)}\n`);
  const interleaved = formatInterleaved(rows, options.windows);
  if (interleaved.length > 0) process.stdout.write(`\n${interleaved.join('\n')}\n`);
  const spread = formatSpread(rows);
  if (spread.length > 0) process.stdout.write(`\n${spread.join('\n')}\n`);
  const mainThread = formatMainThread(rows);
  if (mainThread.length > 0) process.stdout.write(`\n${mainThread.join('\n')}\n`);
  const confirmations = formatConfirmations(rows);
  if (confirmations.length > 0) process.stdout.write(`\n${confirmations.join('\n')}\n`);
  const alerts = formatAlerts(rows);
  if (alerts.length > 0) process.stdout.write(`\n${alerts.join('\n')}\n`);
  if (options.cpuProfDir) printProfiles(resolve(options.cpuProfDir), startedAt);
  process.stdout.write(
    `\nresults: ${relative(process.cwd(), jsonPath) || jsonPath} (and ${relative(process.cwd(), latestPath)})\n`,
  );
  return rows.some((r) => r.status === 'ERROR') ? 1 : 0;
}

/** Summaries of the CPU profiles the server children wrote during this run (profiling slows them down). */
function printProfiles(dir: string, since: Date): void {
  let files: string[] = [];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f))
      .filter((f) => statSync(f).mtimeMs >= since.getTime());
  } catch {
    // No directory: no server wrote a profile.
  }
  process.stdout.write(
    `\nCPU profiles (figures above are slowed down by the profiler): ${files.length ? '' : 'none written'}\n`,
  );
  for (const file of files) {
    process.stdout.write(
      `\n== ${relative(process.cwd(), file)}\n${formatProfile(summarizeProfile(readProfile(file), REPO_ROOT), 15)}\n`,
    );
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
