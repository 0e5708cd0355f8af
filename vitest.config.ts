import { defineConfig } from 'vitest/config';

// One config for the whole repository. Test files live beside the code (unit) or in each package's test/ folder.
// Files run in two forks; each file that needs a database creates its own (a PGlite instance, or a fresh
// PostgreSQL database) and every listener takes a free port, so files share no data. Two forks even on a
// two-core machine (the default would be one there): most files spend their time waiting on servers, databases
// and timers, not on the CPU.
export default defineConfig({
  test: {
    include: ['packages/*/{src,test}/**/*.test.ts', 'apps/*/{src,test}/**/*.test.ts', 'bench/**/*.test.ts'],
    pool: 'forks',
    // A fork runs file after file, keeping its loaded modules: a fresh process per file spent about two seconds
    // loading the dependency graph (oidc-provider, Fastify, PGlite, the @openid4vc libraries) before each file, a
    // third of the suite's time. Files therefore must not rely on process-wide state being at its default: one that
    // needs a global setting sets it and gives back what it found (test-wallet's test/support/insecure-urls.ts).
    isolate: false,
    maxWorkers: 2,
    minWorkers: 1,
    // Generous: two forks on two cores, and files that start servers and operator processes.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
