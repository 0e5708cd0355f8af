import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { againstName, checkoutAgainst, comparedAgainst, linkInstalledPackages } from './against.js';
import { planRun } from './plan.js';
import type { Scenario, SetupContext } from './types.js';

const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'against-test-'));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const contexts: SetupContext[] = [];
const http = (name: string, extra: Partial<Scenario> = {}): Scenario => ({
  name,
  description: name,
  kind: 'http',
  setup: async (context) => {
    contexts.push(context);
    return { url: 'http://127.0.0.1:1/bench', teardown: async () => undefined };
  },
  ...extra,
});

describe('comparedAgainst', () => {
  const registry: Scenario[] = [
    http('bare-route'),
    http('work', { baseline: 'bare-route', goal: { minRatio: 0.2, basis: 'per-core', text: 'the issue' } }),
    { ...http('sign'), kind: 'cpu' },
  ];
  const tree = { ref: 'HEAD~1', commit: 'abcdef0123456789', root: '/tmp/elsewhere' };

  it('pairs each named http scenario with its twin served by the other checkout, judged per core against it', async () => {
    const compared = comparedAgainst(registry, ['work', 'sign'], tree);
    expect(compared.only).toEqual(['work']);
    expect(compared.notCompared).toEqual(['sign']);
    const work = compared.registry.find((s) => s.name === 'work')!;
    expect(work.goal).toEqual({
      minRatio: 1,
      basis: 'per-core',
      against: againstName('work'),
      text: 'per core at least as good as HEAD~1 (abcdef0) (its own goals are not read here)',
    });
    expect(work.baseline).toBe('bare-route');
    const twin = compared.registry.find((s) => s.name === 'work-against')!;
    expect(twin.goal).toBeUndefined();
    expect(twin.description).toContain('HEAD~1 (abcdef0)');
    // The plan measures the twin before the scenario, as any goal's reference.
    expect(planRun(compared.registry, compared.only).scenarios.map((s) => s.name)).toEqual([
      'bare-route',
      'work-against',
      'work',
    ]);
    contexts.length = 0;
    await twin.setup({ pin: false, cpuProfDir: null, replicas: 1 });
    await work.setup({ pin: false, cpuProfDir: null, replicas: 1 });
    expect(contexts.map((c) => c.serversRoot)).toEqual(['/tmp/elsewhere', undefined]);
  });

  it('compares every http scenario when none is named', () => {
    expect(comparedAgainst(registry, null, tree).only).toEqual(['bare-route', 'work']);
  });
});

describe('linkInstalledPackages', () => {
  it("links the repository's packages, and its workspaces' links into the checkout's own sources", () => {
    const repo = tempDir();
    const tree = tempDir();
    mkdirSync(join(repo, 'node_modules', '@tessera'), { recursive: true });
    mkdirSync(join(repo, 'node_modules', 'fastify'));
    mkdirSync(join(repo, 'packages', 'platform', 'node_modules', 'pkijs'), { recursive: true });
    mkdirSync(join(repo, 'packages', 'signing'), { recursive: true });
    symlinkSync('../../packages/platform', join(repo, 'node_modules', '@tessera', 'platform'));
    symlinkSync(join(repo, 'packages', 'signing'), join(repo, 'node_modules', '@tessera', 'signing'));
    mkdirSync(join(tree, 'packages', 'platform'), { recursive: true });
    mkdirSync(join(tree, 'packages', 'signing'), { recursive: true });

    return linkInstalledPackages(repo, tree).then(() => {
      expect(realpathSync(join(tree, 'node_modules', 'fastify'))).toBe(
        realpathSync(join(repo, 'node_modules', 'fastify')),
      );
      // Relative links stay relative (so they resolve into the checkout); absolute ones are moved into it.
      expect(readlinkSync(join(tree, 'node_modules', '@tessera', 'platform'))).toBe('../../packages/platform');
      expect(realpathSync(join(tree, 'node_modules', '@tessera', 'platform'))).toBe(
        realpathSync(join(tree, 'packages', 'platform')),
      );
      expect(readlinkSync(join(tree, 'node_modules', '@tessera', 'signing'))).toBe(join(tree, 'packages', 'signing'));
      expect(realpathSync(join(tree, 'packages', 'platform', 'node_modules'))).toBe(
        realpathSync(join(repo, 'packages', 'platform', 'node_modules')),
      );
      expect(existsSync(join(tree, 'packages', 'signing', 'node_modules'))).toBe(false);
    });
  });
});

describe('checkoutAgainst', () => {
  it('checks a commit out beside a repository and removes it again; an unknown ref is refused', async () => {
    const repo = tempDir();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.email=bench@example.org', '-c', 'user.name=bench', 'commit', '-q', '--allow-empty', '-m', 'one');
    writeFileSync(join(repo, 'file.txt'), 'two');
    git('add', 'file.txt');
    git('-c', 'user.email=bench@example.org', '-c', 'user.name=bench', 'commit', '-q', '-m', 'two');
    mkdirSync(join(repo, 'node_modules'));
    const tree = await checkoutAgainst(repo, 'HEAD~1');
    try {
      expect(tree.commit).toBe(git('rev-parse', 'HEAD~1').trim());
      expect(existsSync(join(tree.root, 'file.txt'))).toBe(false);
      expect(existsSync(join(tree.root, 'node_modules', '@tessera'))).toBe(true);
    } finally {
      await tree.remove();
    }
    expect(existsSync(tree.root)).toBe(false);
    expect(git('worktree', 'list')).not.toContain(tree.root);
    await expect(checkoutAgainst(repo, 'no-such-ref')).rejects.toThrow(/names no commit/);
  });
});
