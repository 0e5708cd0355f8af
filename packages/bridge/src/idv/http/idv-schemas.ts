import Type from 'typebox';

/** Request and response schemas of the IDV API (000 §4.2, §2.4): exactly the fields of the specification. */
export const InitiateIdvResponse = Type.Object({
  reconciliationSessionId: Type.String({ format: 'uuid' }),
  authorizationUrl: Type.String(),
  providerId: Type.String(),
});

/** 000 §2.4 reconciliationStatus (RECONCILIATION_STATUSES). */
const ReconciliationStatusSchema = Type.Union([
  Type.Literal('CREATED'),
  Type.Literal('REDIRECTED'),
  Type.Literal('CALLBACK_RECEIVED'),
  Type.Literal('COMPLETED'),
  Type.Literal('ERROR'),
]);

export const IdvStatusResponse = Type.Object({
  reconciliationStatus: ReconciliationStatusSchema,
  errorMessage: Type.Union([Type.String(), Type.Null()]),
});

export const SubmitIdvBody = Type.Object(
  {
    confirmed: Type.Boolean(),
    selectedMatchId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' })),
  },
  { additionalProperties: false },
);

export const SubmitIdvResponse = Type.Object({
  reconciliationStatus: ReconciliationStatusSchema,
  message: Type.String(),
});
