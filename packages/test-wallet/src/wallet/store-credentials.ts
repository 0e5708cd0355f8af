import { join } from 'node:path';
import type { IssuedCredential } from '../common/credential-format.js';
import { readJsonFile, writeJsonFile } from '../common/persist-json-file.js';

export interface CredentialStore {
  list(): IssuedCredential[];
  add(credential: IssuedCredential): Promise<void>;
}

interface CredentialFile {
  version: 1;
  credentials: IssuedCredential[];
}

/** Held credentials, in `<dataDir>/credentials.json` when a dataDir is given. */
export async function createCredentialStore(dataDir?: string): Promise<CredentialStore> {
  const path = dataDir ? join(dataDir, 'credentials.json') : undefined;
  const credentials = path ? ((await readJsonFile<CredentialFile>(path))?.credentials ?? []) : [];
  return {
    list: () => [...credentials],
    add: async (credential) => {
      credentials.push(credential);
      if (path) await writeJsonFile(path, { version: 1, credentials } satisfies CredentialFile);
    },
  };
}
