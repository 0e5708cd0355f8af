import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../common/persist-json-file.js';
import type { CredentialFormat } from '../common/credential-format.js';

export type CredentialStatus = 'valid' | 'revoked' | 'suspended';

/** Entries in the Token Status List; 2 bits each so that SUSPENDED (0x02) fits (Token Status List §7.1). */
export const TOKEN_STATUS_LIST_SIZE = 16_384;
/** Bits in each W3C list: the 16 KB minimum for herd privacy (StatusList2021 / Bitstring Status List §6.1). */
export const W3C_STATUS_LIST_SIZE = 131_072;

interface StatusState {
  version: 1;
  nextIndex: Record<CredentialFormat, number>;
  statuses: Record<CredentialFormat, Record<string, CredentialStatus>>;
}

export interface StatusRegistry {
  allocate(format: CredentialFormat): Promise<number>;
  set(format: CredentialFormat, index: number, status: CredentialStatus): Promise<void>;
  get(format: CredentialFormat, index: number): Promise<CredentialStatus>;
  /** Indexes whose status is not valid. */
  entries(format: CredentialFormat): Promise<Array<{ index: number; status: CredentialStatus }>>;
}

function emptyState(): StatusState {
  return { version: 1, nextIndex: { 'dc+sd-jwt': 0, jwt_vc_json: 0 }, statuses: { 'dc+sd-jwt': {}, jwt_vc_json: {} } };
}

/**
 * Which index each credential got and which indexes are revoked or suspended. With a `dataDir` the state is a JSON
 * file read on every use, so a `revoke` from another process shows in the running status list server.
 */
export function createStatusRegistry(dataDir?: string): StatusRegistry {
  const path = dataDir ? join(dataDir, 'status-lists.json') : undefined;
  let memory = emptyState();
  let queue: Promise<unknown> = Promise.resolve();

  const load = async (): Promise<StatusState> =>
    path ? ((await readJsonFile<StatusState>(path)) ?? emptyState()) : memory;
  const save = async (state: StatusState): Promise<void> => {
    if (path) await writeJsonFile(path, state);
    else memory = state;
  };
  // Changes are serialized so that two allocations in one process never hand out the same index.
  const change = <T>(apply: (state: StatusState) => T): Promise<T> => {
    const next = queue.then(async () => {
      const state = await load();
      const result = apply(state);
      await save(state);
      return result;
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    allocate: (format) =>
      change((state) => {
        const index = state.nextIndex[format];
        state.nextIndex[format] = index + 1;
        return index;
      }),
    set: (format, index, status) =>
      change((state) => {
        if (status === 'valid') delete state.statuses[format][String(index)];
        else state.statuses[format][String(index)] = status;
      }),
    get: async (format, index) => (await load()).statuses[format][String(index)] ?? 'valid',
    entries: async (format) =>
      Object.entries((await load()).statuses[format]).map(([index, status]) => ({ index: Number(index), status })),
  };
}
