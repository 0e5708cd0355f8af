import Fastify from 'fastify';
import { announceListening, closeOnSignal } from '../lib/server-child.js';

/** The baseline: Fastify 5 with one route and nothing else (no plugins, no hooks, logger off). */
const app = Fastify({ logger: false });
app.get('/bench', async () => ({ ok: true }));

const address = await app.listen({ host: '127.0.0.1', port: 0 });
closeOnSignal(() => app.close());
await announceListening(address);
