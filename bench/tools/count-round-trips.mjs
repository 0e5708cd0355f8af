/* global process, setInterval */
// Counts a bench server's PostgreSQL round trips per HTTP request (docs/scaling.md). Preload it into the server
// children (they inherit NODE_OPTIONS from the harness):
//   NODE_OPTIONS="--import $PWD/bench/tools/count-round-trips.mjs" ROUND_TRIPS_DIR=/tmp/rt npm run bench -- --only token-refresh
// Every `pg` Client query is one round trip (node-postgres sends each query and waits for its answer). Counting
// starts at the server's first HTTP request, so the start (migrations, seeding) is left out; the warm-up is in.
// Each server process writes <dir>/<pid>.json ({ requests, queries }) every second and when it exits.
import { createRequire } from 'node:module';
import http from 'node:http';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.ROUND_TRIPS_DIR;
const script = process.argv[1] ?? '';
if (dir && script.includes('/servers/')) {
  const require = createRequire(join(process.cwd(), 'package.json'));
  const pg = require('pg');
  let requests = 0;
  let queries = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    if (requests > 0) queries++;
    return query.apply(this, args);
  };
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === 'request') requests++;
    return emit.call(this, event, ...args);
  };
  const mode = process.env.BENCH_TOKEN_MODE ?? process.env.BENCH_STATUS_LISTS_MODE ?? null;
  mkdirSync(dir, { recursive: true });
  const write = () =>
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify({ script, mode, requests, queries }));
  setInterval(write, 1000).unref();
  process.on('exit', write);
}
