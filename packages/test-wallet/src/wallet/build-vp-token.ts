import { randomBytes } from 'node:crypto';
import { epochSeconds, type Clock } from '../common/clock.js';
import { generateEs256Key } from '../crypto/generate-es256-key.js';
import type { CapturedResponse } from './captured-response.js';
import type { HeldCredential } from './decode-held-credential.js';
import type { HolderKey, HolderKeyring } from './manage-holder-keys.js';
import { presentJwtVc } from './present-jwt-vc.js';
import { presentSdJwtVc } from './present-sd-jwt-vc.js';
import type { ResolvedRequest } from './resolve-request.js';
import { SD_JWT_ONLY_OPTIONS, type RespondOptions } from './respond-options.js';
import type { CredentialSelection } from './select-credentials.js';
import { WalletError } from './wallet-error.js';

const WRONG_AUDIENCE = 'https://wrong-audience.invalid';

async function holderKeyFor(credential: HeldCredential, keyring: HolderKeyring): Promise<HolderKey> {
  const binding = credential.binding;
  const found = binding
    ? 'publicJwk' in binding
      ? await keyring.findByPublicJwk(binding.publicJwk)
      : keyring.findByDid(binding.did)
    : undefined;
  // A credential bound to someone else's key (useCredential) is signed with the default key: a binding mismatch.
  return found ?? keyring.defaultKey;
}

/**
 * Builds the DCQL vp_token (OpenID4VP 1.0 §8.1): a JSON object keyed by credential query id whose values are arrays
 * of presentations, each bound to the request's client_id and nonce, with the hostile variants of `options` applied.
 */
export async function buildVpToken(input: {
  selections: CredentialSelection[];
  request: ResolvedRequest;
  keyring: HolderKeyring;
  clock: Clock;
  options: RespondOptions;
}): Promise<{ vpToken: Record<string, string[]>; presented: CapturedResponse['presented'] }> {
  const { options } = input;
  const vpToken: Record<string, string[]> = {};
  const presented: CapturedResponse['presented'] = [];
  let renamed = false;
  let sdJwtTargeted = false;

  for (const selection of input.selections) {
    const targeted = options.hostileOnly === undefined || options.hostileOnly === selection.credentialQueryId;
    const key = await holderKeyFor(selection.credential, input.keyring);
    const signingJwk = targeted && options.wrongHolderKey ? await generateEs256Key() : key.privateJwk;
    const audience = targeted && options.wrongAudience ? WRONG_AUDIENCE : input.request.clientId;
    const nonce = targeted && options.wrongNonce ? randomBytes(16).toString('base64url') : input.request.nonce;
    const iat = epochSeconds(input.clock) + (targeted ? (options.kbIatOffsetSeconds ?? 0) : 0);
    const common = { holderPrivateJwk: signingJwk, audience, nonce, iat };

    let result: { presentation: string; disclosedClaims: string[] };
    if (selection.credential.format === 'dc+sd-jwt') {
      sdJwtTargeted ||= targeted;
      const claimPaths =
        targeted && options.dropClaim
          ? selection.claimPaths.filter((path) => path[path.length - 1] !== options.dropClaim)
          : selection.claimPaths;
      result = await presentSdJwtVc({
        ...common,
        credential: selection.credential,
        claimPaths,
        variants: targeted ? options : {},
      });
    } else {
      result = await presentJwtVc({
        ...common,
        credential: selection.credential,
        holderDid: key.did,
        holderKeyId: key.keyId,
        variants: targeted ? options : {},
      });
    }

    if (options.omitCredentialQuery === selection.credentialQueryId) continue;
    let id = selection.credentialQueryId;
    if (targeted && options.credentialQueryId && !renamed) {
      id = options.credentialQueryId;
      renamed = true;
    }
    (vpToken[id] ??= []).push(result.presentation);
    presented.push({
      credentialQueryId: id,
      format: selection.credential.format,
      disclosedClaims: result.disclosedClaims,
    });
  }

  const sdJwtOnly = SD_JWT_ONLY_OPTIONS.filter((name) => options[name] !== undefined && options[name] !== false);
  if (sdJwtOnly.length > 0 && !sdJwtTargeted) {
    throw new WalletError(
      'invalid_option',
      `${sdJwtOnly.join(', ')} apply to dc+sd-jwt presentations, and none is being sent`,
    );
  }
  return { vpToken, presented };
}
