import Type from 'typebox';

/** Request and response schemas of the bridge's routes (000 §4.1; extensions documented in the README). */
export const CreateSessionBody = Type.Object(
  {
    queryId: Type.String({ minLength: 1, maxLength: 64 }),
    oauthSessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7e]+$' })),
    forceReconciliation: Type.Optional(Type.Boolean()),
    /** Extension: the client_id of the authorization request this session serves (flows.md step 2). */
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[\\x21-\\x7e]+$' })),
    /** Extension: its PKCE code_challenge (RFC 7636 §4.2, S256: 43 base64url characters). */
    codeChallenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
  },
  { additionalProperties: false },
);

export const CreateSessionResponse = Type.Object({
  sessionId: Type.String({ format: 'uuid' }),
  qrCodeDataUri: Type.String(),
  requestUri: Type.String(),
  statusUri: Type.String(),
  qrPageUri: Type.String(),
});

export const SessionParams = Type.Object(
  { sessionId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);
export const RequestParams = Type.Object(
  { requestId: Type.String({ pattern: '^[A-Za-z0-9_-]{22}$' }) },
  { additionalProperties: false },
);

const Failure = Type.Object({ check: Type.String(), reason: Type.String() });

export const SessionStatusResponse = Type.Object({
  sessionId: Type.String(),
  status: Type.String(),
  idvRequired: Type.Boolean(),
  idvRequirementReason: Type.Union([Type.String(), Type.Null()]),
  reconciliationPlanType: Type.Union([Type.String(), Type.Null()]),
  /** Extension: the failed check, when the status is ERROR. */
  failure: Type.Optional(Failure),
  /** Extension: responses refused so far while the session stayed open, and the last one's check. */
  rejectedResponses: Type.Optional(Type.Integer()),
  lastRejection: Type.Optional(Failure),
  /** Extension: at MATCH_CONFIRMATION_REQUIRED, the candidates (README "Match confirmation"). */
  matchCandidates: Type.Optional(
    Type.Array(
      Type.Object({
        matchId: Type.String(),
        matchedOn: Type.Array(Type.String()),
        claims: Type.Record(Type.String(), Type.String()),
        institution: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  ),
});

export const CompletionResponse = Type.Object({
  userId: Type.String(),
  claims: Type.Record(Type.String(), Type.Unknown()),
  isNewUser: Type.Boolean(),
  authenticatedAt: Type.String(),
  acr: Type.String(),
  amr: Type.Array(Type.String()),
  claimSource: Type.String(),
});

export const IdvRequiredResponse = Type.Object({
  idvRequired: Type.Boolean(),
  idvMethod: Type.String(),
  idvSteps: Type.Array(Type.String()),
  /** Extension: the holder is asked to confirm a match first (README "Match confirmation"). */
  matchConfirmationRequired: Type.Optional(Type.Boolean()),
});

export const RedeemBody = Type.Object(
  {
    clientId: Type.String({ minLength: 1, maxLength: 256 }),
    codeChallenge: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  },
  { additionalProperties: false },
);

export const RedeemResponse = Type.Object({
  sessionId: Type.String(),
  oauthSessionId: Type.Union([Type.String(), Type.Null()]),
  ...CompletionResponse.properties,
});

/** direct_post and direct_post.jwt bodies (OID4VP §8.2, §8.3): form parameters, all strings. */
export const ResponseBody = Type.Record(Type.String({ maxLength: 64 }), Type.String());

/** Extension: a 409 of redeem names the session's status beside the error, when it has one. */
export const RedeemConflictResponse = Type.Object({
  error: Type.String(),
  error_description: Type.String(),
  status: Type.Optional(Type.String()),
});
