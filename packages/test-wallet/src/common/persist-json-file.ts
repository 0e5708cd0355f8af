import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';

/** Reads a JSON file; undefined when it does not exist. */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Replaces a JSON file atomically (write to a temporary name, then rename), readable by the owner only. */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/**
 * Creates a JSON file only if it does not exist yet and returns what the file holds afterwards, so two processes
 * starting at once (the CLI and the server's development profile) end up with the same content.
 */
export async function createJsonFileOnce<T>(path: string, create: () => Promise<T>): Promise<T> {
  const existing = await readJsonFile<T>(path);
  if (existing !== undefined) return existing;
  const value = await create();
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readJsonFile<T>(path);
    if (winner === undefined) throw error;
    return winner;
  }
}
