import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import { serveUntilSignal } from '../../../../bench/lib/server-child.js';
import { benchDataDir } from '../../../../bench/lib/bench-platform.js';
import { benchVct, resolveRequestBody } from '../resolve-request.js';

/**
 * The floor of the resolve scenarios (no goal): what plain Fastify 5 (no plugins, no hooks, logger off) spends on a
 * request of the same shape, with none of the platform and none of the registry. A POST whose JSON body of the same
 * size is parsed by Fastify's default parser and read; the answer carries an ETag and Cache-Control and is either a
 * 304 (If-None-Match present) or a 200 with a body of BENCH_FLOOR_BODY_BYTES bytes (4000, the size of the scenario's resolved design) sent as a Buffer, as the
 * registry sends a kept resolve. Writes BENCH_DATA_DIR/resolve.json in the resolve scenarios' format: a token of a
 * bearer JWT's length (never verified), the bodies and their ETags.
 */
const dataDir = benchDataDir();
const DESIGNS = 200;
const body = Buffer.alloc(Number(process.env.BENCH_FLOOR_BODY_BYTES ?? 4000), 'x');

const app = Fastify({ logger: false });
app.post('/api/v1/designs/credentials/resolve', async (request, reply) => {
  const input = request.body as { bindingValue: string };
  const etag = `"${input.bindingValue.length.toString(16).padStart(43, '0')}"`;
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (request.headers['if-none-match'] !== undefined) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
});

const bodies: string[] = [];
const etags: string[] = [];
for (let i = 0; i < DESIGNS; i++) {
  const vct = benchVct(i);
  bodies.push(resolveRequestBody(vct));
  etags.push(`"${vct.length.toString(16).padStart(43, '0')}"`);
}
// An RS256 JWT of the test issuer's shape is about 560 characters; its bytes are only carried here.
const token = `eyJ${'a'.repeat(120)}.eyJ${'b'.repeat(230)}.${'c'.repeat(200)}`;
await writeFile(join(dataDir, 'resolve.json'), JSON.stringify({ token, bodies, etags }));

await serveUntilSignal(app);
