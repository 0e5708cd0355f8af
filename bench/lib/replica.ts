import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPostgresTestDatabase } from '@tessera/platform/testing';
import { benchDataDir } from './bench-platform.js';

/**
 * The server side of `--replicas n`: the harness starts replica 0, waits until it listens, then starts the others
 * with the same data directory, so that replica 0 creates what the replicas share (the database, the master key,
 * the seeded rows) and the others read it there. Without `--replicas` a server is replica 0 of 1 and nothing changes.
 */
export interface ReplicaRole {
  /** 0 for the first replica (the one that seeds), 1.. for the others. */
  index: number;
  count: number;
  /** The load balancer's URL when there are several replicas: the address clients see (e.g. a token issuer). */
  publicUrl: string | null;
}

export const REPLICA_ENV = {
  index: 'BENCH_REPLICA_INDEX',
  count: 'BENCH_REPLICAS',
  publicUrl: 'BENCH_PUBLIC_URL',
} as const;

export function replicaRole(env: NodeJS.ProcessEnv = process.env): ReplicaRole {
  const index = Number(env[REPLICA_ENV.index] ?? 0);
  const count = Number(env[REPLICA_ENV.count] ?? 1);
  if (!Number.isInteger(index) || !Number.isInteger(count) || count < 1 || index < 0 || index >= count) {
    throw new Error(`bad replica settings: ${REPLICA_ENV.index}=${index}, ${REPLICA_ENV.count}=${count}`);
  }
  return { index, count, publicUrl: env[REPLICA_ENV.publicUrl] || null };
}

const sharedFile = (name: string) => join(benchDataDir(), `replica-${name}.json`);

/** Replica 0's side of a shared value: written where the other replicas will look. */
function writeShared(name: string, value: unknown): void {
  writeFileSync(sharedFile(name), JSON.stringify(value));
}

/** The other replicas' side: replica 0 has announced itself before they start, so the file is there. */
function readShared<T>(name: string): T {
  const file = sharedFile(name);
  if (!existsSync(file)) throw new Error(`replica ${replicaRole().index}: replica 0 left no ${file}`);
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** A value every replica must hold alike: replica 0 makes it, the others read replica 0's. */
export async function sharedAcrossReplicas<T>(name: string, make: () => Promise<T>): Promise<T> {
  if (replicaRole().index !== 0) return readShared<T>(name);
  const value = await make();
  writeShared(name, value);
  return value;
}

/**
 * The scenario's PostgreSQL database: a fresh one on the machine's server, created by replica 0 (which drops it
 * when it closes, after the others have stopped) and joined by the other replicas.
 */
export async function replicaDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (replicaRole().index !== 0) return { url: readShared<{ url: string }>('database').url, drop: async () => {} };
  const created = await createPostgresTestDatabase();
  writeShared('database', { url: created.url });
  return created;
}
