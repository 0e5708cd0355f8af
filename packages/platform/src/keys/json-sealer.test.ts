import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform } from '../testing/index.js';
import { JsonSealer, rowAad } from './json-sealer.js';

/**
 * The key of a sealer is made on its first use, inside the caller's unit of work. Another unit that seals while the
 * first has not committed must wait for that key (or make it), not fail (seen with concurrent authorization codes).
 */
describe('JsonSealer on concurrent first uses (postgres)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await createTestPlatform('postgres');
  });
  afterAll(async () => t?.close());

  it('a second unit of work seals while the first, which made the key, is still open', async () => {
    const sealer = new JsonSealer(t.platform.keys, 'test-sealer-race');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstSealed!: () => void;
    const sealedInFirst = new Promise<void>((resolve) => (firstSealed = resolve));
    const first = t.platform.db.withTenant('demo', async (sql) => {
      const sealed = await sealer.sealJson({ n: 1 }, rowAad('t', 'demo', '1', 'c'), sql);
      firstSealed();
      await gate;
      return sealed;
    });
    await sealedInFirst;
    const second = t.platform.db.withTenant('demo', (sql) =>
      sealer.sealJson({ n: 2 }, rowAad('t', 'demo', '2', 'c'), sql),
    );
    // Give the second unit time to reach the key, then let the first commit.
    await new Promise((r) => setTimeout(r, 200));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(await sealer.openJson(a, rowAad('t', 'demo', '1', 'c'))).toEqual({ n: 1 });
    expect(await sealer.openJson(b, rowAad('t', 'demo', '2', 'c'))).toEqual({ n: 2 });
  });
});
