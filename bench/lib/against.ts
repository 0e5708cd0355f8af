import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { goalsOf } from './plan.js';
import type { Scenario } from './types.js';

const run = promisify(execFile);

/**
 * `--against <ref>`: each named http scenario measured in turn with the same scenario served by another commit
 * (bench/README.md, "Against another commit"). On this VM a change of a few percent is below what two runs a
 * minute apart can tell (bench/README.md, "goals read in turn"); read in turn with the commit before it, it shows.
 */

/** A checkout of another commit beside the repository, sharing the repository's installed packages. */
export interface AgainstTree {
  ref: string;
  /** The commit `ref` named when the checkout was made. */
  commit: string;
  root: string;
  remove(): Promise<void>;
}

async function git(cwd: string, args: string[]): Promise<string> {
  return (await run('git', args, { cwd, maxBuffer: 1 << 20 })).stdout;
}

/** A detached worktree of `ref` in a temporary directory, its packages linked to the repository's (below). */
export async function checkoutAgainst(repoRoot: string, ref: string): Promise<AgainstTree> {
  const commit = (await git(repoRoot, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => '')).trim();
  if (!commit) throw new Error(`--against: "${ref}" names no commit of this repository`);
  const root = await mkdtemp(join(tmpdir(), 'tessera-bench-against-'));
  const remove = async () => {
    await git(repoRoot, ['worktree', 'remove', '--force', root]).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await git(repoRoot, ['worktree', 'add', '--detach', '--force', root, commit]);
    await linkInstalledPackages(repoRoot, root);
  } catch (error) {
    await remove();
    throw error;
  }
  return { ref, commit, root, remove };
}

/**
 * Gives `tree` the packages installed in `repoRoot` without installing anything: every entry of its node_modules
 * is a link to the repository's, except the workspace packages (`@tessera/*`), which must resolve to the tree's
 * own sources. npm links those relative to node_modules (`../../packages/x`), so the same relative link made in
 * the tree points into the tree; an absolute one into the repository is rewritten to the same place in the tree.
 * A workspace's own node_modules (packages it holds at another version) is linked where the tree has that workspace.
 */
export async function linkInstalledPackages(repoRoot: string, tree: string): Promise<void> {
  const from = join(repoRoot, 'node_modules');
  const to = join(tree, 'node_modules');
  await mkdir(join(to, '@tessera'), { recursive: true });
  for (const name of await readdir(from)) {
    if (name === '@tessera') continue;
    await symlink(join(from, name), join(to, name));
  }
  const workspaces = join(from, '@tessera');
  for (const name of existsSync(workspaces) ? await readdir(workspaces) : []) {
    const link = join(workspaces, name);
    if (!(await lstat(link)).isSymbolicLink()) continue;
    const target = await readlink(link);
    const inTree = isAbsolute(target) ? join(tree, relative(repoRoot, target)) : target;
    await symlink(inTree, join(to, '@tessera', name));
    const workspace = isAbsolute(target) ? target : join(workspaces, target);
    const own = join(workspace, 'node_modules');
    const treeWorkspace = join(tree, relative(repoRoot, workspace));
    if (existsSync(own) && existsSync(treeWorkspace) && !existsSync(join(treeWorkspace, 'node_modules')))
      await symlink(own, join(treeWorkspace, 'node_modules'));
  }
}

/** The name of the twin of `scenario` served by the other commit. */
export const againstName = (scenario: string) => `${scenario}-against`;

/**
 * The registry with each wanted http scenario paired with its twin served by `tree` (same requests, same setup,
 * the other commit's server) and judged against it alone: one goal, per core, at least as good (its own goals
 * are left out; its baseline stays, for the table). Answers the registry, the names to run (the scenarios; their
 * twins come in as the goals' references) and the cpu scenarios left out: they run in this process, on this
 * commit's code only.
 */
export function comparedAgainst(
  registry: readonly Scenario[],
  only: readonly string[] | null,
  tree: Pick<AgainstTree, 'ref' | 'commit' | 'root'>,
): { registry: Scenario[]; only: string[]; notCompared: string[] } {
  const wanted = new Set(only ?? registry.map((s) => s.name));
  const label = `${tree.ref} (${tree.commit.slice(0, 7)})`;
  const compared = registry.filter((s) => wanted.has(s.name) && s.kind === 'http');
  const twins = compared.map((s): Scenario => ({
    ...s,
    name: againstName(s.name),
    description: `${s.description}, served by ${label}`,
    goal: undefined,
    setup: (context) => s.setup({ ...context, serversRoot: tree.root }),
  }));
  const judged = new Map(
    compared.map((s) => [
      s.name,
      {
        ...s,
        goal: {
          minRatio: 1,
          basis: 'per-core' as const,
          against: againstName(s.name),
          text: `per core at least as good as ${label}${goalsOf(s).length > 0 ? ` (its own goals are not read here)` : ''}`,
        },
      },
    ]),
  );
  return {
    registry: [...registry.map((s) => judged.get(s.name) ?? s), ...twins],
    only: compared.map((s) => s.name),
    notCompared: [...wanted].filter((name) => !judged.has(name)),
  };
}
