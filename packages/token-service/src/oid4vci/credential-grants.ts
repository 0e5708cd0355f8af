import { randomUUID } from 'node:crypto';
import { loadConfig, type CommandContext, type JoinedUnit, type Platform, type Principal } from '@tessera/platform';
import { Oid4vciGrantsConfigSchema, type Oid4vciGrantsConfig } from '../config.js';
import { createPreAuthorizedCode } from '../commands/create-pre-authorized-code.js';
import { createIssuerState } from '../commands/create-issuer-state.js';

/**
 * The in-process interface the credential issuer calls when it builds an offer (contract A of issue 19): the grants
 * of OpenID4VCI 1.0 §4.1.1 that the token service later honours at /token and /authorize. Each call is a command
 * through the bus (policy, audit) under the issuer's service principal, in the caller's open unit of work when it
 * gives one (`unit`: the grant commits with the offer that carries it, issue 13 §7).
 */
export interface CredentialGrants {
  /**
   * Offer side (OpenID4VCI 1.0 §4.1.1): a pre-authorized code for an issuance session. `txCode` is the PIN value
   * (stored only as a keyed MAC, never returned); `preAuthorizedCode` given or generated (≥128 bits).
   */
  createPreAuthorizedCode(
    tenantId: string,
    input: {
      correlationId: string;
      credentialConfigurationIds: string[];
      preAuthorizedCode?: string;
      txCode?: string;
      ttlSeconds?: number;
    },
    unit?: JoinedUnit,
  ): Promise<{ preAuthorizedCode: string; expiresAt: Date }>;
  /** Offer side, authorization_code grant: an `issuer_state` bound to the session. */
  createIssuerState(
    tenantId: string,
    input: { correlationId: string; credentialConfigurationIds: string[]; ttlSeconds?: number },
    unit?: JoinedUnit,
  ): Promise<{ issuerState: string; expiresAt: Date }>;
}

export interface CredentialGrantsOptions {
  /** The `tokenService.oid4vci` section (defaults for what is left out). */
  config?: Partial<Oid4vciGrantsConfig>;
}

/** The scope of the service principal under which the credential issuer creates grants. */
export const CREDENTIAL_GRANTS_SCOPE = 'token-service:credential-grants';

export function createCredentialGrants(platform: Platform, options: CredentialGrantsOptions = {}): CredentialGrants {
  const config = loadConfig(Oid4vciGrantsConfigSchema, { env: {}, overrides: options.config ?? {} });
  const services = {
    db: platform.db,
    keys: platform.keys,
    clock: platform.clock,
    config,
    scope: CREDENTIAL_GRANTS_SCOPE,
  };
  const preAuthorized = createPreAuthorizedCode(services);
  const issuerState = createIssuerState(services);
  const context = (tenantId: string, unit: JoinedUnit | undefined): CommandContext => {
    const principal: Principal = {
      id: 'oid4vci-issuer',
      kind: 'service',
      tenantId,
      roles: [],
      scopes: [CREDENTIAL_GRANTS_SCOPE],
      clientId: null,
      issuer: null,
    };
    return { tenantId, principal, correlationId: randomUUID(), trace: null, log: platform.logger, unit };
  };
  return {
    createPreAuthorizedCode: (tenantId, input, unit) =>
      platform.commands.execute(preAuthorized, context(tenantId, unit), input),
    createIssuerState: (tenantId, input, unit) =>
      platform.commands.execute(issuerState, context(tenantId, unit), input),
  };
}
