import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { replicaRole, sharedAcrossReplicas } from './replica.js';
import { announceListening, closeOnSignal } from './server-child.js';

/**
 * The smallest replicable server, for the harness tests (replica.test.ts): each response says which replica
 * answered, the value replica 0 shared with the others, and the public URL the replicas were given.
 */
const role = replicaRole();
const shared = await sharedAcrossReplicas('seed', async () => ({ seed: randomUUID() }));
const server = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ replica: role.index, count: role.count, seed: shared.seed, publicUrl: role.publicUrl }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
closeOnSignal(() => new Promise<void>((resolve) => server.close(() => resolve())));
await announceListening(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
