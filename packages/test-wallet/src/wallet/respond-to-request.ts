import type { Clock } from '../common/clock.js';
import { withLoopbackHttp } from './allow-loopback-http.js';
import { buildVpToken } from './build-vp-token.js';
import type { CapturedResponse } from './captured-response.js';
import { createWalletCallbacks, type VerificationNotes } from './create-wallet-callbacks.js';
import { decodeHeldCredential } from './decode-held-credential.js';
import type { HolderKeyring } from './manage-holder-keys.js';
import { resolveRequest, type SupportedClientIdPrefix } from './resolve-request.js';
import type { RespondOptions } from './respond-options.js';
import { selectCredentials, selectOverride } from './select-credentials.js';
import type { CredentialStore } from './store-credentials.js';
import { submitResponse } from './submit-response.js';

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
      const selections = options.useCredential
        ? selectOverride(request.dcqlQuery, await decodeHeldCredential(options.useCredential))
        : selectCredentials(
            request.dcqlQuery,
            (await Promise.all(context.store.list().map(decodeHeldCredential))).filter(
              (credential) => !options.formats || options.formats.includes(credential.format),
            ),
          );
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
