import { invalidField } from './errors.js';
import type { Phase } from './phases.js';

/**
 * A pipeline configuration (001 §2.2). Shape chosen here (the spec names only the four members):
 * - invocationBindings: which connector runs at which phase, the connector fields it takes as input, whether it is
 *   required (its failure fails the session) and whether it answers synchronously or may defer (callback).
 * - claimsBindings: per credential configuration, which attribute paths become which claims, which are required,
 *   and whether an incomplete credential may be answered as deferred (001 §3).
 * - expectedInitialConnectorFields: the connector fields a session init must bring.
 * - manualApproval: a complete session waits for a reviewer's decision (001 §3, "awaiting review").
 */
export interface InvocationBinding {
  connectorId: string;
  phase: Phase;
  inputConnectorFields: string[];
  required: boolean;
  mode: 'SYNCHRONOUS' | 'DEFERRABLE';
}

export interface ClaimBinding {
  /** The attribute path in the session's bag (dot-separated). */
  attributePath: string;
  /** The claim path in the credential (dot-separated); the attribute path when absent. */
  claimPath: string;
  required: boolean;
}

export interface CredentialClaimsBinding {
  credentialConfigurationId: string;
  deferrable: boolean;
  claims: ClaimBinding[];
}

export interface PipelineConfiguration {
  pipelineId: string;
  invocationBindings: InvocationBinding[];
  claimsBindings: CredentialClaimsBinding[];
  expectedInitialConnectorFields: string[];
  manualApproval: boolean;
}

/** The wire form: everything but the ids may be omitted (defaults: required, SYNCHRONOUS, not deferrable, []). */
export interface PipelineConfigurationInput {
  pipelineId: string;
  invocationBindings?: {
    connectorId: string;
    phase: Phase;
    inputConnectorFields?: string[] | undefined;
    required?: boolean | undefined;
    mode?: InvocationBinding['mode'] | undefined;
  }[];
  claimsBindings?: {
    credentialConfigurationId: string;
    deferrable?: boolean | undefined;
    claims: { attributePath: string; claimPath?: string | undefined; required?: boolean | undefined }[];
  }[];
  expectedInitialConnectorFields?: string[] | undefined;
  manualApproval?: boolean | undefined;
}

/** Completes the defaults and checks what a schema cannot: unique ids and claim paths. */
export function normalizePipeline(input: PipelineConfigurationInput): PipelineConfiguration {
  const credentialIds = new Set<string>();
  const claimsBindings = (input.claimsBindings ?? []).map((binding, i) => {
    if (credentialIds.has(binding.credentialConfigurationId))
      throw invalidField(
        `claimsBindings[${i}].credentialConfigurationId`,
        'A credential configuration is bound only once per pipeline.',
      );
    credentialIds.add(binding.credentialConfigurationId);
    const claimPaths = new Set<string>();
    const claims = binding.claims.map((c, j) => {
      const claimPath = c.claimPath ?? c.attributePath;
      if (claimPaths.has(claimPath))
        throw invalidField(`claimsBindings[${i}].claims[${j}].claimPath`, 'A claim is bound only once per credential.');
      claimPaths.add(claimPath);
      return { attributePath: c.attributePath, claimPath, required: c.required ?? true };
    });
    return {
      credentialConfigurationId: binding.credentialConfigurationId,
      deferrable: binding.deferrable ?? false,
      claims,
    };
  });
  const invocations = new Set<string>();
  const invocationBindings = (input.invocationBindings ?? []).map((b) => ({
    connectorId: b.connectorId,
    phase: b.phase,
    inputConnectorFields: [...new Set(b.inputConnectorFields ?? [])],
    required: b.required ?? true,
    mode: b.mode ?? ('SYNCHRONOUS' as const),
  }));
  invocationBindings.forEach((b, i) => {
    const key = `${b.connectorId}\u0000${b.phase}`;
    if (invocations.has(key))
      throw invalidField(`invocationBindings[${i}]`, 'A connector is bound to a phase only once.');
    invocations.add(key);
  });
  return {
    pipelineId: input.pipelineId,
    invocationBindings,
    claimsBindings,
    expectedInitialConnectorFields: [...new Set(input.expectedInitialConnectorFields ?? [])],
    manualApproval: input.manualApproval ?? false,
  };
}

/** Whether a contributor is bound in the pipeline, and if so whether any of its bindings is required. */
export function contributorRequirement(
  pipeline: PipelineConfiguration,
  contributorId: string,
): 'required' | 'optional' | 'unbound' {
  const bindings = pipeline.invocationBindings.filter((b) => b.connectorId === contributorId);
  if (bindings.length === 0) return 'unbound';
  return bindings.some((b) => b.required) ? 'required' : 'optional';
}
