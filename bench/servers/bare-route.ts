import Fastify from 'fastify';
import { serveUntilSignal } from '../lib/server-child.js';

/** The baseline: Fastify 5 with one route and nothing else (no plugins, no hooks, logger off). */
const app = Fastify({ logger: false });
app.get('/bench', async () => ({ ok: true }));

await serveUntilSignal(app);
