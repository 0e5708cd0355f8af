import type { PipelineConfiguration } from './pipeline.js';

export interface CredentialCompleteness {
  credentialConfigurationId: string;
  complete: boolean;
  deferrable: boolean;
  /** Claim paths of the required claims whose attribute is not in the bag. */
  missingClaims: string[];
}

/**
 * Per credential binding, complete or the required claims still missing (001 §4.2). Needs only the attribute
 * paths present in the bag, never their values: it runs without opening anything sealed.
 */
export function evaluateCompleteness(
  pipeline: PipelineConfiguration,
  presentPaths: ReadonlySet<string>,
): CredentialCompleteness[] {
  return pipeline.claimsBindings.map((binding) => {
    const missingClaims = binding.claims
      .filter((c) => c.required && !presentPaths.has(c.attributePath))
      .map((c) => c.claimPath);
    return {
      credentialConfigurationId: binding.credentialConfigurationId,
      complete: missingClaims.length === 0,
      deferrable: binding.deferrable,
      missingClaims,
    };
  });
}

export const allComplete = (results: readonly CredentialCompleteness[]) => results.every((r) => r.complete);

/** The attribute paths that some claim requires: the only ones completeness looks for. */
export const requiredPaths = (pipeline: PipelineConfiguration): string[] => [
  ...new Set(pipeline.claimsBindings.flatMap((b) => b.claims.filter((c) => c.required).map((c) => c.attributePath))),
];
