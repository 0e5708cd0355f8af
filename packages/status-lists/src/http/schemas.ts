import Type from 'typebox';
import { STORED_LIST_ID_PATTERN } from '../domain/list-definition.js';

/**
 * Request and response schemas. The structure is checked here (types, required members); the values (type,
 * purpose, bits, length bounds, issuer) are checked by the domain, whose messages name what is accepted.
 */
export const CreateListBody = Type.Object(
  {
    statusList: Type.Object(
      {
        type: Type.String({ maxLength: 100 }),
        id: Type.String({ minLength: 1, maxLength: 2000 }),
        issuer: Type.String({ minLength: 1, maxLength: 4000 }),
        correlationId: Type.Optional(Type.String({ maxLength: 200 })),
        keyRef: Type.Optional(Type.String({ maxLength: 200 })),
        length: Type.Optional(Type.Integer()),
        lenght: Type.Optional(Type.Integer()),
        proofFormat: Type.String({ maxLength: 100 }),
        statusPurpose: Type.Optional(Type.String({ maxLength: 100 })),
        oauthStatusList: Type.Optional(
          Type.Object({ bitsPerStatus: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const ListParams = Type.Object({ listId: Type.String({ pattern: STORED_LIST_ID_PATTERN.source }) });

export const EntryParams = Type.Object({
  listId: ListParams.properties.listId,
  index: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
});

export const UpdateEntryBody = Type.Object(
  {
    // The integer first: with type coercion on, a string branch would turn 3 into "3".
    status: Type.Union([Type.Integer(), Type.String({ maxLength: 50 })]),
    reason: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$' })),
  },
  { additionalProperties: false },
);

const StatusListEntry = Type.Object({
  status_list: Type.Object({ idx: Type.Integer(), uri: Type.String() }),
});

const CredentialStatus = Type.Object({
  id: Type.String(),
  type: Type.String(),
  statusPurpose: Type.String(),
  statusListIndex: Type.String(),
  statusListCredential: Type.String(),
});

export const AllocatedEntryResponse = Type.Object({
  listId: Type.String(),
  index: Type.Integer(),
  uri: Type.String(),
  status: Type.Optional(StatusListEntry),
  credentialStatus: Type.Optional(CredentialStatus),
});

export const EntryResponse = Type.Object({
  listId: Type.String(),
  index: Type.Integer(),
  uri: Type.String(),
  status: Type.String(),
  value: Type.Integer(),
});

export const UpdatedEntryResponse = Type.Object({
  ...EntryResponse.properties,
  previous: Type.Object({ status: Type.String(), value: Type.Integer() }),
});

export const IssuerMetadataResponse = Type.Object({
  issuer: Type.String(),
  jwks: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
});
