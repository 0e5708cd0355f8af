import Type from 'typebox';
import { ENCRYPTION_MODES } from '../domain/encryption-mode.js';
import { PHASES } from '../domain/phases.js';

/**
 * Request schemas of the pipeline backend (001 §2.2, §4.2). Identifiers are short printable tokens; values of
 * attributes are any JSON. Sizes are bounded so that one request cannot fill the bag (README.md, Decisions).
 */
const Id = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:~-]+$' });
const Name = Type.String({ minLength: 1, maxLength: 128 });
const AttributePath = Type.String({ minLength: 1, maxLength: 256 });
const Phase = Type.Union(PHASES.map((p) => Type.Literal(p)));

export const PipelineConfigurationBody = Type.Object(
  {
    pipelineId: Id,
    invocationBindings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            connectorId: Id,
            phase: Phase,
            inputConnectorFields: Type.Optional(Type.Array(Name, { maxItems: 64 })),
            required: Type.Optional(Type.Boolean()),
            mode: Type.Optional(Type.Union([Type.Literal('SYNCHRONOUS'), Type.Literal('DEFERRABLE')])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 64 },
      ),
    ),
    claimsBindings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            credentialConfigurationId: Id,
            deferrable: Type.Optional(Type.Boolean()),
            claims: Type.Array(
              Type.Object(
                {
                  attributePath: AttributePath,
                  claimPath: Type.Optional(AttributePath),
                  required: Type.Optional(Type.Boolean()),
                },
                { additionalProperties: false },
              ),
              { maxItems: 256 },
            ),
          },
          { additionalProperties: false },
        ),
        { maxItems: 64 },
      ),
    ),
    expectedInitialConnectorFields: Type.Optional(Type.Array(Name, { maxItems: 64 })),
    manualApproval: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ConnectorFields = Type.Record(Name, Type.String({ maxLength: 4096 }), { maxProperties: 64 });
const AttributeList = Type.Array(
  Type.Object({ path: AttributePath, value: Type.Unknown() }, { additionalProperties: false }),
  { maxItems: 512 },
);

export const Group = Type.Object(
  {
    contributorId: Id,
    phase: Phase,
    connectorFields: Type.Optional(ConnectorFields),
    semanticAttributeSets: Type.Optional(
      Type.Array(
        Type.Object(
          { bundleId: Id, values: Type.Record(AttributePath, Type.Unknown(), { maxProperties: 512 }) },
          { additionalProperties: false },
        ),
        { maxItems: 64 },
      ),
    ),
    attributes: Type.Optional(AttributeList),
  },
  { additionalProperties: false },
);

export const ContributionBody = Type.Object(
  { groups: Type.Array(Group, { minItems: 1, maxItems: 64 }) },
  { additionalProperties: false },
);

export const InitSessionBody = Type.Object(
  {
    pipeline_configuration: Type.Union([Id, PipelineConfigurationBody]),
    correlation_id: Type.Optional(Id),
    initial_attributes: Type.Optional(AttributeList),
    initial_connector_fields: Type.Optional(ConnectorFields),
    encryption_mode: Type.Optional(Type.Union(ENCRYPTION_MODES.map((m) => Type.Literal(m)))),
    ttl_seconds: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

export const ApproveBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')]),
    reason: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);

export const FailBody = Type.Object(
  { contributor_id: Id, reason: Type.String({ minLength: 1, maxLength: 2048 }) },
  { additionalProperties: false },
);

export const SessionParams = Type.Object({ correlationId: Id }, { additionalProperties: false });
export const PipelineParams = Type.Object({ pipelineId: Id }, { additionalProperties: false });

/** The capability token is a few hundred characters of base64url and dots (crypto/callback-token.ts). */
export const CallbackParams = Type.Object(
  { correlationId: Id, callbackToken: Type.String({ minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9._-]+$' }) },
  { additionalProperties: false },
);
