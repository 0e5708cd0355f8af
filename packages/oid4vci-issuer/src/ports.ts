import type { JoinedUnit, Principal } from '@tessera/platform';

/**
 * What this issuer calls in the two neighbouring contexts, as structural types so that the composition root hands
 * in the real implementations (contracts A and D of issue 19):
 * - `CredentialGrantsPort`: `createCredentialGrants` of `@tessera/token-service`;
 * - `IssuanceSessionsPort`: `createIssuanceSessions` of `@tessera/issuance`.
 * Their writes take the issuer command's open unit of work (`unit`), so that an answer that is an error leaves
 * nothing behind in either context (issue 13 §7).
 */
export interface CredentialGrantsPort {
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
  createIssuerState(
    tenantId: string,
    input: { correlationId: string; credentialConfigurationIds: string[]; ttlSeconds?: number },
    unit?: JoinedUnit,
  ): Promise<{ issuerState: string; expiresAt: Date }>;
}

/** The session view of the pipeline (its `SessionSummary`). */
export interface SessionViewLike {
  correlation_id: string;
  status: string;
  phase: string;
  completed_phases: string[];
  expires_at: string;
}

export type ClaimsOutcome =
  | { complete: true; claims: Record<string, unknown> }
  | { complete: false; missing: string[]; deferrable: boolean; status: string };

export type NotificationEventName = 'credential_accepted' | 'credential_failure' | 'credential_deleted';

/** A pipeline configuration given inline (the shape of `@tessera/issuance`'s PipelineConfigurationInput). */
export interface InlinePipeline {
  pipelineId: string;
  claimsBindings: {
    credentialConfigurationId: string;
    deferrable: boolean;
    claims: { attributePath: string; claimPath: string; required: boolean }[];
  }[];
}

export interface StartSessionInput {
  pipeline_configuration: string | InlinePipeline;
  correlation_id?: string | undefined;
  initial_attributes?: { path: string; value: unknown }[] | undefined;
  initial_connector_fields?: Record<string, string> | undefined;
  ttl_seconds?: number | undefined;
}

export interface IssuanceSessionsPort {
  startSession(
    tenantId: string,
    principal: Principal,
    input: StartSessionInput,
    unit?: JoinedUnit,
  ): Promise<SessionViewLike>;
  advance(tenantId: string, correlationId: string, phase: 'OID4VCI_PRE_ISSUE'): Promise<SessionViewLike>;
  claimsFor(tenantId: string, correlationId: string, credentialConfigurationId: string): Promise<ClaimsOutcome>;
  markDeferred(tenantId: string, correlationId: string, unit?: JoinedUnit): Promise<void>;
  markIssued(
    tenantId: string,
    correlationId: string,
    credentialConfigurationId: string,
    unit?: JoinedUnit,
  ): Promise<void>;
  /** In a caller's unit, the receipt phase's connectors run once that unit has committed. */
  recordNotification(
    tenantId: string,
    correlationId: string,
    event: NotificationEventName,
    unit?: JoinedUnit,
  ): Promise<void>;
  get(tenantId: string, correlationId: string): Promise<SessionViewLike | null>;
}

/** `createStatusEntryAllocator` of `@tessera/status-lists`. */
export interface StatusEntriesPort {
  allocateStatusEntry(
    tenant: string,
    listConfig: {
      type: 'OAuthStatusList' | 'BitstringStatusList';
      statusPurpose?: 'revocation' | 'suspension';
      keyRef?: string;
    },
  ): Promise<{
    status?: { status_list: { idx: number; uri: string } };
    credentialStatus?: Record<string, unknown>;
  }>;
}

/** The display of a credential configuration from the design registry, when a design is bound (issue 17 item 6). */
export interface DesignDisplayPort {
  credentialDisplay(
    tenantId: string,
    credentialConfigurationId: string,
    vct: string | undefined,
  ): Promise<{ display: Record<string, unknown>[]; claims: Record<string, Record<string, unknown>[]> } | null>;
}
