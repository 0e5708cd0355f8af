import type { JWK } from 'jose';
import { systemClock, type Clock } from '../common/clock.js';
import { toIssuedCredential, type IssuedCredential } from '../common/credential-format.js';
import type { CapturedResponse } from './captured-response.js';
import { decodeHeldCredential, type HeldCredential } from './decode-held-credential.js';
import { createHolderKeyring } from './manage-holder-keys.js';
import { respondToRequest, type RespondResult } from './respond-to-request.js';
import type { RespondOptions } from './respond-options.js';
import { createCredentialStore, type ReceivedFrom } from './store-credentials.js';
import {
  receiveCredentialOffer,
  type ReceiveOptions,
  type ReceiveResult,
} from '../oid4vci/receive-credential-offer.js';
import { resolveDidPublicJwk } from '../crypto/resolve-did-key.js';
import { readAnswer } from './submit-response.js';
import { WalletError } from './wallet-error.js';

export interface CreateTestWalletOptions {
  /** Where holder keys and credentials are kept; in memory when omitted. */
  dataDir?: string;
  /**
   * Binding-key strategy. Default false: one holder key (and so one did:jwk) for every credential, the way most
   * wallets bind a user. True: every `nextBindingKey()` makes a fresh key, the way privacy-minded wallets avoid
   * correlation; the verifier then sees a different holder key per credential.
   */
  freshKeyPerCredential?: boolean;
  /**
   * PEM trust anchors for x509_san_dns and x509_hash verifiers. Empty (the default): any certificate chain is
   * accepted and the response carries the warning `x509-untrusted: ...`. Non-empty: an untrusted chain stops the wallet.
   */
  trustAnchors?: string[];
  clock?: Clock;
  /** The fetch used for every request the wallet makes; redirects are never followed. */
  fetch?: typeof fetch;
}

export interface BindingKey {
  publicJwk: JWK;
  /** did:jwk of the key, for `issueJwtVc({ holderDid })`. */
  did: string;
  keyId: string;
}

export interface TestWallet {
  /** did:jwk of the default holder key. */
  readonly holderDid: string;
  /** Public JWK of the default holder key, for `issueSdJwtVc({ holderPublicJwk })`. */
  readonly holderJwk: JWK;
  /** The key to bind the next credential to (see `freshKeyPerCredential`). */
  nextBindingKey(): Promise<BindingKey>;
  /** Keeps a credential; it must be bound to one of this wallet's keys. */
  store(credential: IssuedCredential | string): Promise<HeldCredential>;
  credentials(): Promise<HeldCredential[]>;
  /**
   * Receives the credentials of an OpenID4VCI credential offer (`openid-credential-offer://…`, by value or by
   * `credential_offer_uri`) through the pre-authorized code flow, binds them to `nextBindingKey()` and stores them
   * beside the others; `respond()` then prefers them. Throws a WalletError with a one-line message on failure.
   */
  receive(offerLink: string, options?: ReceiveOptions): Promise<ReceiveResult>;
  /** Answers an `openid4vp://` link and posts the response; see RespondOptions for the hostile variants. */
  respond(link: string, options?: RespondOptions): Promise<RespondResult>;
  /** What the last `respond()` posted; undefined before the first. */
  captureLastResponse(): CapturedResponse | undefined;
  /** Posts exactly the last form again to the same response_uri (a second POST to a used response_uri). */
  resubmitLastResponse(): Promise<{ status: number; body: unknown }>;
}

/** Wraps fetch so that no redirect is ever followed (OpenID4VP 1.0 §14.8: 3xx answers are refused, not followed). */
function withoutRedirects(base: typeof fetch): typeof fetch {
  return ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) =>
    base(input, { ...init, redirect: 'manual' })) as typeof fetch;
}

/** A holder wallet for tests and for trying the system by hand. */
export async function createTestWallet(options: CreateTestWalletOptions = {}): Promise<TestWallet> {
  const keyring = await createHolderKeyring({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    freshKeyPerCredential: options.freshKeyPerCredential ?? false,
  });
  const store = await createCredentialStore(options.dataDir);
  const fetchFunction = withoutRedirects(options.fetch ?? fetch);
  const context = {
    keyring,
    store,
    trustAnchors: options.trustAnchors ?? [],
    clock: options.clock ?? systemClock,
    fetch: fetchFunction,
  };
  let lastCaptured: CapturedResponse | undefined;

  /** The key a credential is bound to: `cnf.jwk`, or the subject DID (a did:jwk may encode the key differently). */
  async function bindingKeyOf(held: HeldCredential) {
    const binding = held.binding;
    if (!binding) return undefined;
    if ('publicJwk' in binding) return keyring.findByPublicJwk(binding.publicJwk);
    const byDid = keyring.findByDid(binding.did);
    if (byDid || !binding.did.startsWith('did:jwk:')) return byDid;
    try {
      return await keyring.findByPublicJwk(resolveDidPublicJwk(binding.did));
    } catch {
      return undefined;
    }
  }

  async function keep(issued: IssuedCredential, receivedFrom?: ReceivedFrom): Promise<HeldCredential> {
    const held = await decodeHeldCredential(issued);
    if (!(await bindingKeyOf(held)))
      throw new WalletError('unknown_holder_key', 'the credential is not bound to a key of this wallet');
    return decodeHeldCredential(await store.add(issued, receivedFrom));
  }

  return {
    holderDid: keyring.defaultKey.did,
    holderJwk: keyring.defaultKey.publicJwk,
    nextBindingKey: async () => {
      const key = await keyring.nextBindingKey();
      return { publicJwk: key.publicJwk, did: key.did, keyId: key.keyId };
    },
    store: (credential) => keep(toIssuedCredential(credential)),
    credentials: () => Promise.all(store.list().map(decodeHeldCredential)),
    receive: (offerLink, receiveOptions) =>
      receiveCredentialOffer(
        { fetch: fetchFunction, clock: context.clock, nextBindingKey: () => keyring.nextBindingKey(), store: keep },
        offerLink,
        receiveOptions,
      ),
    respond: async (link, respondOptions) => {
      const result = await respondToRequest(context, link, respondOptions);
      lastCaptured = result.posted;
      return result;
    },
    captureLastResponse: () => lastCaptured,
    resubmitLastResponse: async () => {
      if (!lastCaptured) throw new WalletError('nothing_captured', 'no response has been posted yet');
      const response = await fetchFunction(lastCaptured.responseUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(lastCaptured.form).toString(),
      });
      const { status, body } = await readAnswer(response);
      return { status, body };
    },
  };
}
