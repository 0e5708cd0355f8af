import Type from 'typebox';

/** One form parameter: a single string (RFC 6749 §3.2: parameters MUST NOT be included more than once). */
const Param = Type.String();
const Optional = Type.Optional(Param);
/** A parameter that must be present with a value. */
const Required = Type.String({ minLength: 1 });

/**
 * The form of a token request (RFC 6749 §4.1.3, §4.4, §6; RFC 8707; RFC 9396; OpenID4VCI 1.0 §6.1). Which of the
 * parameters a grant needs is the grant's to check; the schema checks the form's shape. Any other parameter is
 * ignored, but is a string too: none is repeated.
 */
export const TokenRequestBody = Type.Object(
  {
    grant_type: Param,
    code: Optional,
    redirect_uri: Optional,
    code_verifier: Optional,
    refresh_token: Optional,
    scope: Optional,
    resource: Optional,
    authorization_details: Optional,
    'pre-authorized_code': Optional,
    tx_code: Optional,
    client_id: Optional,
    client_secret: Optional,
  },
  { additionalProperties: Param },
);

/** The form of an introspection (RFC 7662 §2.1) or revocation (RFC 7009 §2.1) request. */
export const TokenLookupBody = Type.Object(
  {
    token: Required,
    token_type_hint: Optional,
    client_id: Optional,
    client_secret: Optional,
  },
  { additionalProperties: Param },
);

/** The route schema's media type of these forms, for the OpenAPI document. */
export const FORM_CONSUMES = ['application/x-www-form-urlencoded'];
