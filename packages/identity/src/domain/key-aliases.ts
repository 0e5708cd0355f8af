/**
 * The tenant's identity keys in the key manager (issue 5 §5): the key-encryption key that wraps each record's data
 * key (A256GCM), and the HMAC key of the lookup index (HS256), which is also the key shared with external clients
 * for their lookup hashes (000 §4.3), hence created exportable. Only the key migration rotates them.
 */
export const identityDekAlias = (tenantId: string) => `identity:${tenantId}:dek`;
export const identityHmacAlias = (tenantId: string) => `identity:${tenantId}:hmac`;
