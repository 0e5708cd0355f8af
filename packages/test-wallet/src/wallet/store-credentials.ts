import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { IssuedCredential } from '../common/credential-format.js';
import { readJsonFile, writeJsonFile } from '../common/persist-json-file.js';

/** Where a credential came from when an OpenID4VCI issuer handed it to the wallet (`wallet.receive()`). */
export interface ReceivedFrom {
  credentialIssuer: string;
  credentialConfigurationId: string;
  /** ISO 8601. */
  receivedAt: string;
}

/** A held credential as kept on disk: the credential, a short id to name it by, and its origin when received. */
export interface StoredCredential extends IssuedCredential {
  id: string;
  receivedFrom?: ReceivedFrom;
}

export interface CredentialStore {
  list(): StoredCredential[];
  add(credential: IssuedCredential, receivedFrom?: ReceivedFrom): Promise<StoredCredential>;
}

interface CredentialFile {
  version: 1;
  credentials: Array<IssuedCredential & { id?: string; receivedFrom?: ReceivedFrom }>;
}

/**
 * A stable short name of a credential: the first 10 characters of the base64url SHA-256 of its serialization, so
 * that files written before credentials had ids name them the same way on every run.
 */
export function credentialIdOf(raw: string): string {
  return createHash('sha256').update(raw).digest('base64url').slice(0, 10);
}

/** Held credentials, in `<dataDir>/credentials.json` when a dataDir is given. */
export async function createCredentialStore(dataDir?: string): Promise<CredentialStore> {
  const path = dataDir ? join(dataDir, 'credentials.json') : undefined;
  const stored = path ? ((await readJsonFile<CredentialFile>(path))?.credentials ?? []) : [];
  const credentials: StoredCredential[] = stored.map((credential) => ({
    ...credential,
    id: credential.id ?? credentialIdOf(credential.raw),
  }));
  return {
    list: () => [...credentials],
    add: async (credential, receivedFrom) => {
      const entry: StoredCredential = {
        ...credential,
        id: credentialIdOf(credential.raw),
        ...(receivedFrom ? { receivedFrom } : {}),
      };
      credentials.push(entry);
      if (path) await writeJsonFile(path, { version: 1, credentials } satisfies CredentialFile);
      return entry;
    },
  };
}
