import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { readJsonFile, writeJsonFile, createJsonFileOnce } from '../common/persist-json-file.js';
import { createDidJwk, didJwkKeyId } from '../crypto/create-did-jwk.js';
import { generateEs256Key, toPublicJwk } from '../crypto/generate-es256-key.js';

export interface HolderKey {
  /** RFC 7638 thumbprint of the public key; how stored credentials point at their key. */
  thumbprint: string;
  privateJwk: JWK;
  publicJwk: JWK;
  /** did:jwk of the key; the holder identifier for jwt_vc_json. */
  did: string;
  /** did:jwk verification method, the `kid` of VP JWTs. */
  keyId: string;
}

export interface HolderKeyring {
  readonly defaultKey: HolderKey;
  /**
   * The key the next credential should be bound to: the default key, or a fresh key with `freshKeyPerCredential`
   * (the way wallets that avoid linkability across verifiers work).
   */
  nextBindingKey(): Promise<HolderKey>;
  findByPublicJwk(publicJwk: JWK): Promise<HolderKey | undefined>;
  findByDid(did: string): HolderKey | undefined;
}

interface KeyFile {
  version: 1;
  keys: JWK[];
}

async function toHolderKey(privateJwk: JWK): Promise<HolderKey> {
  const publicJwk = toPublicJwk(privateJwk);
  const did = createDidJwk(publicJwk);
  return { thumbprint: await calculateJwkThumbprint(publicJwk), privateJwk, publicJwk, did, keyId: didJwkKeyId(did) };
}

/** The holder's ES256 keys; the first is the default key. Kept in `<dataDir>/holder-keys.json` when a dataDir is given. */
export async function createHolderKeyring(input: {
  dataDir?: string;
  freshKeyPerCredential: boolean;
}): Promise<HolderKeyring> {
  const path = input.dataDir ? join(input.dataDir, 'holder-keys.json') : undefined;
  const initial: KeyFile = path
    ? await createJsonFileOnce<KeyFile>(path, async () => ({ version: 1, keys: [await generateEs256Key()] }))
    : { version: 1, keys: [await generateEs256Key()] };
  const keys = await Promise.all(initial.keys.map(toHolderKey));
  const defaultKey = keys[0]!;

  return {
    defaultKey,
    nextBindingKey: async () => {
      if (!input.freshKeyPerCredential) return defaultKey;
      const key = await toHolderKey(await generateEs256Key());
      keys.push(key);
      if (path) {
        const file = (await readJsonFile<KeyFile>(path)) ?? { version: 1, keys: [] };
        await writeJsonFile(path, { version: 1, keys: [...file.keys, key.privateJwk] });
      }
      return key;
    },
    findByPublicJwk: async (publicJwk) => {
      const thumbprint = await calculateJwkThumbprint(toPublicJwk(publicJwk));
      return keys.find((key) => key.thumbprint === thumbprint);
    },
    findByDid: (did) => keys.find((key) => key.did === did.split('#')[0]),
  };
}
