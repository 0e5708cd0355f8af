import { defineConfig } from 'vitest/config';

// One config for the whole repository. Test files live beside the code (unit) or in each package's test/ folder.
// Files run in parallel forks; each file that needs a database creates its own (a PGlite instance, or a fresh
// PostgreSQL database), so files never share state.
export default defineConfig({
  test: {
    include: ['packages/*/{src,test}/**/*.test.ts', 'apps/*/{src,test}/**/*.test.ts', 'bench/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
