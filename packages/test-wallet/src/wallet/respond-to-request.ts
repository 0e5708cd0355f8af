import type { Clock } from '../common/clock.js';
import { withLoopbackHttp } from './allow-loopback-http.js';
import { buildVpToken } from './build-vp-token.js';
import type { CapturedResponse } from './captured-response.js';
import { createWalletCallbacks, type VerificationNotes } from './create-wallet-callbacks.js';
import { inPreferenceOrder } from './credential-preference.js';
import { decodeHeldCredential, type HeldCredential } from './decode-held-credential.js';
import type { HolderKeyring } from './manage-holder-keys.js';
import { resolveRequest, type ResolvedRequest, type SupportedClientIdPrefix } from './resolve-request.js';
import type { RespondOptions } from './respond-options.js';
import { selectCredentials, selectOverride } from './select-credentials.js';
import type { CredentialStore } from './store-credentials.js';
import { submitResponse } from './submit-response.js';
import { WalletError } from './wallet-error.js';

export interface RespondResult {
  /** HTTP status of the verifier's answer to the posted response. */
  status: number;
  body: unknown;
  /** Where the verifier wants the user to continue (OpenID4VP 1.0 §8.2), when it said so. */
  redirectUri?: string;
  request: {
    clientId: string;
    clientIdPrefix: SupportedClientIdPrefix;
    responseMode: 'direct_post' | 'direct_post.jwt';
    nonce: string;
    state: string | undefined;
  };
  /** Accepted with reservations, e.g. `x509-untrusted: ...` when no trust anchor was configured. */
  warnings: string[];
  posted: CapturedResponse;
}

export interface WalletContext {
  keyring: HolderKeyring;
  store: CredentialStore;
  trustAnchors: string[];
  clock: Clock;
  fetch: typeof fetch;
}

function replayedToken(replayFrom: NonNullable<RespondOptions['replayFrom']>): Record<string, string[]> {
  return 'vpToken' in replayFrom && typeof replayFrom.vpToken === 'object' && !Array.isArray(replayFrom.vpToken)
    ? (replayFrom as CapturedResponse).vpToken
    : (replayFrom as Record<string, string[]>);
}

/** Answers one authorization request link: verify the request, choose credentials, present them, post the response. */
export async function respondToRequest(
  context: WalletContext,
  link: string,
  options: RespondOptions = {},
): Promise<RespondResult> {
  const notes: VerificationNotes = { problems: [], warnings: [] };
  const callbacks = createWalletCallbacks({
    trustAnchors: context.trustAnchors,
    clock: context.clock,
    fetch: context.fetch,
    notes,
  });
  const request = await resolveRequest({ link, callbacks, notes, fetch: context.fetch });

  return withLoopbackHttp(request.loopbackHttp, async () => {
    let vpToken: Record<string, string[]>;
    let presented: CapturedResponse['presented'];
    if (options.replayFrom) {
      vpToken = replayedToken(options.replayFrom);
      presented = 'presented' in options.replayFrom ? (options.replayFrom as CapturedResponse).presented : [];
    } else {
      const held = await consideredCredentials(context, options);
      let selections: ReturnType<typeof selectCredentials>;
      try {
        selections = options.useCredential
          ? selectOverride(request.dcqlQuery, await decodeHeldCredential(options.useCredential))
          : selectCredentials(request.dcqlQuery, held);
      } catch (error) {
        if (error instanceof WalletError && error.code === 'no_matching_credentials')
          await reportRefusal(context, request, error.message);
        throw error;
      }
      ({ vpToken, presented } = await buildVpToken({
        selections,
        request,
        keyring: context.keyring,
        clock: context.clock,
        options,
      }));
    }
    const submitted = await submitResponse({
      request,
      vpToken,
      presented,
      callbacks,
      ...(options.overrideState !== undefined ? { overrideState: options.overrideState } : {}),
    });
    return {
      status: submitted.status,
      body: submitted.body,
      ...(submitted.redirectUri ? { redirectUri: submitted.redirectUri } : {}),
      request: {
        clientId: request.clientId,
        clientIdPrefix: request.clientIdPrefix,
        responseMode: request.responseMode,
        nonce: request.nonce,
        state: request.state,
      },
      warnings: notes.warnings,
      posted: submitted.captured,
    };
  });
}

/**
 * The held credentials the DCQL query is answered from, in the wallet's order of preference: received credentials
 * first (the most recent first), then the others in the order they were stored; `selectCredentials` takes the first
 * that matches. `credentialId` narrows them to one, `formats` to some formats.
 */
async function consideredCredentials(context: WalletContext, options: RespondOptions): Promise<HeldCredential[]> {
  const stored = context.store.list();
  if (options.credentialId !== undefined && !stored.some((credential) => credential.id === options.credentialId))
    throw new WalletError('unknown_credential', `the wallet holds no credential with id '${options.credentialId}'`);
  return (await Promise.all(inPreferenceOrder(stored).map(decodeHeldCredential))).filter(
    (credential) =>
      (options.credentialId === undefined || credential.id === options.credentialId) &&
      (!options.formats || options.formats.includes(credential.format)),
  );
}

/**
 * OID4VP 1.0 §8.5: a wallet that cannot answer tells the verifier with an error response (`access_denied`: no
 * credential satisfies the query), posted in the clear to the response_uri with the request's `state`, so the
 * verifier's page can say so at once instead of waiting for the session to expire. Its failure is not the refusal's.
 */
async function reportRefusal(context: WalletContext, request: ResolvedRequest, description: string): Promise<void> {
  const form = new URLSearchParams({ error: 'access_denied', error_description: description.slice(0, 200) });
  if (request.state !== undefined) form.set('state', request.state);
  try {
    await context.fetch(request.responseUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
  } catch {
    // The verifier unreachable: the refusal still stands, the caller reports it.
  }
}
