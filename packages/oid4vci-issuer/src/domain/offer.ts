import type { Oid4vciConfig } from '../config.js';
import type { InlinePipeline } from '../ports.js';
import { offerInvalid } from './errors.js';

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';

/** The pipeline an offer's session runs on: the configurations' stored pipeline, or one inline pipeline. */
export const INLINE_PIPELINE_ID = 'oid4vci-inline';

export function checkConfigurationIds(config: Oid4vciConfig, ids: string[], field: string): void {
  if (ids.length === 0) throw offerInvalid('Offer at least one credential configuration.', field);
  if (new Set(ids).size !== ids.length) throw offerInvalid('A credential configuration is offered once.', field);
  const unknown = ids.filter((id) => !Object.hasOwn(config.credentialConfigurations, id));
  if (unknown.length > 0) throw offerInvalid(`Unknown credential configuration ids: ${unknown.join(', ')}.`, field);
}

/**
 * One session serves every configuration of an offer, so they share one pipeline: the stored pipeline they all
 * name, or, when none names one, an inline pipeline that binds each configured claim to the attribute of the same
 * path (an offer's initial attributes fill it).
 */
export function sessionPipeline(config: Oid4vciConfig, ids: string[], field: string): string | InlinePipeline {
  const configurations = ids.map((id) => config.credentialConfigurations[id]!);
  const named = new Set(configurations.map((c) => c.pipelineId ?? null));
  if (named.size > 1)
    throw offerInvalid('The configurations of one offer must share one pipeline (pipelineId).', field);
  const [pipelineId] = named;
  if (pipelineId) return pipelineId;
  return {
    pipelineId: INLINE_PIPELINE_ID,
    claimsBindings: ids.map((id) => {
      const c = config.credentialConfigurations[id]!;
      return {
        credentialConfigurationId: id,
        deferrable: c.deferrable,
        claims: c.claims.map((claim) => ({
          attributePath: claim.path,
          claimPath: claim.path,
          required: claim.mandatory,
        })),
      };
    }),
  };
}

/**
 * Flattens an object of supplied credential data (001 §2.3 credentialDataSupplierInput) into attribute records:
 * nested objects become dot paths; arrays and scalars are values.
 */
export function flattenAttributes(input: Record<string, unknown>, prefix = ''): { path: string; value: unknown }[] {
  const out: { path: string; value: unknown }[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key.includes('.') || key === '')
      throw offerInvalid('Attribute names are non-empty and contain no dot.', 'credentialDataSupplierInput');
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      out.push(...flattenAttributes(value as Record<string, unknown>, path));
    else out.push({ path, value });
  }
  return out;
}
