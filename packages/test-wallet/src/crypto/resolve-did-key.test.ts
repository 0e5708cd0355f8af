import { describe, expect, it } from 'vitest';
import { createDidJwk, didJwkKeyId } from './create-did-jwk.js';
import { generateEs256Key, toPublicJwk } from './generate-es256-key.js';
import { resolveDidPublicJwk } from './resolve-did-key.js';

describe('resolveDidPublicJwk', () => {
  // Published did:key test vectors (did:key method specification and its P-256 examples).
  it('resolves a did:key P-256 key (multicodec 0x1200, compressed point)', () => {
    const did = 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169';
    expect(resolveDidPublicJwk(`${did}#zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169`)).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: 'fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI',
      y: 'hW2ojTNfH7Jbi8--CJUo3OCbH3y5n91g-IMA9MLMbTU',
    });
  });

  it('resolves a did:key Ed25519 key (multicodec 0xed)', () => {
    expect(resolveDidPublicJwk('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: 'Lm_M42cB3HkUiODQsXRcweM6TByfzEHGO9ND274JcOY',
    });
  });

  it('resolves did:jwk#0 to the public key it encodes', async () => {
    const publicJwk = toPublicJwk(await generateEs256Key());
    expect(resolveDidPublicJwk(didJwkKeyId(createDidJwk(publicJwk)))).toEqual(publicJwk);
  });

  it('refuses private keys in did:jwk, foreign fragments and other DID methods', async () => {
    const privateJwk = await generateEs256Key();
    const withPrivate = `did:jwk:${Buffer.from(JSON.stringify(privateJwk)).toString('base64url')}`;
    expect(() => resolveDidPublicJwk(withPrivate)).toThrow(/private key/);
    expect(() => resolveDidPublicJwk(`${createDidJwk(privateJwk)}#1`)).toThrow(/#0/);
    expect(() => resolveDidPublicJwk('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#other')).toThrow(
      /repeat/,
    );
    expect(() => resolveDidPublicJwk('did:web:verifier.example')).toThrow(/unsupported DID method/);
  });
});
