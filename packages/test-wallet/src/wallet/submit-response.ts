import { randomBytes } from 'node:crypto';
import { Openid4vpClient } from '@openid4vc/openid4vp';
import type { CapturedResponse } from './captured-response.js';
import type { WalletCallbacks } from './create-wallet-callbacks.js';
import type { ResolvedRequest } from './resolve-request.js';
import { RESPONSE_ENCRYPTION_METADATA } from './wallet-metadata.js';
import { WalletError } from './wallet-error.js';

export interface SubmittedResponse {
  status: number;
  /** The verifier's answer, parsed as JSON when it is JSON. */
  body: unknown;
  /** `redirect_uri` of the verifier's answer (OpenID4VP 1.0 §8.2), when present. */
  redirectUri?: string;
  captured: CapturedResponse;
}

/** Reads the verifier's answer: JSON when possible, the text otherwise. */
export async function readAnswer(response: Response): Promise<{ status: number; body: unknown; redirectUri?: string }> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : text;
  } catch {
    body = text;
  }
  const redirectUri =
    typeof body === 'object' && body !== null ? (body as { redirect_uri?: unknown }).redirect_uri : undefined;
  return { status: response.status, body, ...(typeof redirectUri === 'string' ? { redirectUri } : {}) };
}

/**
 * Creates and posts the authorization response with the @openid4vc library: direct_post sends the form fields
 * `vp_token` (JSON) and `state` (OpenID4VP 1.0 §8.2); direct_post.jwt encrypts them to the verifier key found in
 * `client_metadata.jwks`, ECDH-ES with A128GCM or A256GCM as the verifier lists (§8.3, HAIP 1.0), and posts
 * `response=<JWE>`.
 */
export async function submitResponse(input: {
  request: ResolvedRequest;
  vpToken: Record<string, string[]>;
  presented: CapturedResponse['presented'];
  callbacks: WalletCallbacks;
  overrideState?: string;
}): Promise<SubmittedResponse> {
  const client = new Openid4vpClient({ callbacks: input.callbacks });
  const payload =
    input.overrideState !== undefined
      ? { ...input.request.payload, state: input.overrideState }
      : input.request.payload;
  const encrypted = input.request.responseMode === 'direct_post.jwt';
  let created: Awaited<ReturnType<Openid4vpClient['createOpenid4vpAuthorizationResponse']>>;
  try {
    created = await client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: payload,
      authorizationResponsePayload: { vp_token: input.vpToken },
      ...(encrypted
        ? {
            jarm: {
              encryption: { nonce: randomBytes(16).toString('base64url') },
              serverMetadata: RESPONSE_ENCRYPTION_METADATA,
            },
          }
        : {}),
    });
  } catch (error) {
    // For example direct_post.jwt without a usable encryption key in client_metadata.
    throw new WalletError('unsupported_request', `the response could not be built: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let response: Response;
  try {
    ({ response } = await client.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: payload,
      authorizationResponsePayload: created.authorizationResponsePayload,
      ...(created.jarm ? { jarm: { responseJwt: created.jarm.responseJwt } } : {}),
    }));
  } catch (error) {
    throw new WalletError(
      'response_post_failed',
      `the response_uri could not be reached: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const state = created.authorizationResponsePayload.state;
  const form: Record<string, string> = created.jarm
    ? { response: created.jarm.responseJwt }
    : { vp_token: JSON.stringify(input.vpToken), ...(state !== undefined ? { state } : {}) };
  return {
    ...(await readAnswer(response)),
    captured: {
      responseUri: input.request.responseUri,
      responseMode: input.request.responseMode,
      clientId: input.request.clientId,
      nonce: input.request.nonce,
      state,
      form,
      vpToken: input.vpToken,
      presented: input.presented,
    },
  };
}
