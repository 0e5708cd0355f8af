/**
 * What this wallet supports (OpenID4VP 1.0 §10 wallet metadata), sent with `request_uri_method=post` (§5.10.1).
 */
export const WALLET_METADATA = {
  vp_formats_supported: {
    'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
    jwt_vc_json: { alg_values: ['ES256'] },
  },
  client_id_prefixes_supported: ['x509_san_dns', 'x509_hash', 'decentralized_identifier'],
  request_object_signing_alg_values_supported: ['ES256', 'ES384', 'ES512', 'EdDSA', 'PS256', 'RS256'],
  authorization_encryption_alg_values_supported: ['ECDH-ES'],
  authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
} as const;

/** The JARM/encryption capabilities handed to the library when it builds a direct_post.jwt response (HAIP 1.0). */
export const RESPONSE_ENCRYPTION_METADATA = {
  authorization_signing_alg_values_supported: ['ES256'],
  authorization_encryption_alg_values_supported: [...WALLET_METADATA.authorization_encryption_alg_values_supported],
  authorization_encryption_enc_values_supported: [...WALLET_METADATA.authorization_encryption_enc_values_supported],
};
