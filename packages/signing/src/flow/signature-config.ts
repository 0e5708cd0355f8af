import type { SigningConfig } from '../config.js';
import { SIGNATURE_ALGORITHMS, type DigestAlgorithm, type SignatureAlgorithm } from '../domain/algorithms.js';
import { badRequest } from '../domain/errors.js';
import type { WireFormParameters, WirePadesParameters } from '../domain/pades-parameters.js';

export interface ResolvedConfig {
  digestAlgorithm: DigestAlgorithm;
  signatureAlgorithm: SignatureAlgorithm | null;
  form: WireFormParameters;
}

/**
 * The signature configuration `binding.signatureConfigId` names, with the request's override applied member by
 * member (002 §4.1 operation 1: signatureFormParametersOverride).
 */
export function resolveSignatureConfig(
  config: SigningConfig,
  signatureConfigId: string,
  override: WireFormParameters | undefined,
): ResolvedConfig {
  if (!Object.hasOwn(config.signatureConfigs, signatureConfigId))
    throw badRequest(
      `No signature configuration ${JSON.stringify(signatureConfigId)} exists.`,
      'binding.signatureConfigId',
    );
  const chosen = config.signatureConfigs[signatureConfigId]!;
  const algorithm = chosen.signatureAlgorithm;
  if (algorithm !== undefined && !(SIGNATURE_ALGORITHMS as readonly string[]).includes(algorithm))
    throw badRequest(
      `The signature configuration names an unknown algorithm ${algorithm}.`,
      'binding.signatureConfigId',
    );
  const base = (chosen.signatureFormParameters ?? {}) as WireFormParameters;
  const pades =
    base.padesSignatureFormParameters || override?.padesSignatureFormParameters
      ? ({
          ...base.padesSignatureFormParameters,
          ...override?.padesSignatureFormParameters,
        } as WirePadesParameters)
      : undefined;
  return {
    digestAlgorithm: chosen.digestAlgorithm as DigestAlgorithm,
    signatureAlgorithm: (algorithm as SignatureAlgorithm | undefined) ?? null,
    form: pades ? { padesSignatureFormParameters: pades } : {},
  };
}

/** PAdES applies to a PDF whose form parameters are PAdES ones; anything else is signed as raw data. */
export const isPades = (mimeType: string, form: WireFormParameters | undefined): boolean =>
  mimeType.toLowerCase() === 'application/pdf' && form?.padesSignatureFormParameters !== undefined;
