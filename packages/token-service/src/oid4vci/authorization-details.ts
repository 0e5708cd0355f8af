/**
 * `authorization_details` of type `openid_credential` (OpenID4VCI 1.0 §5.1.1, RFC 9396 §2): the credential
 * configurations a wallet asks for, at /authorize or, in the pre-authorized flow, at /token (§6.1). Answers the
 * asked configuration ids (deduplicated, in order), or why the value is refused (RFC 9396 §5
 * `invalid_authorization_details`).
 */
export type ParsedDetails = { ok: true; configurationIds: string[] } | { ok: false; description: string };

const MAX_ENTRIES = 50;
const ID = /^[\x21-\x7e]{1,200}$/;

export function parseCredentialAuthorizationDetails(raw: string, allowed: readonly string[]): ParsedDetails {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, description: 'authorization_details is not JSON.' };
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ENTRIES)
    return { ok: false, description: `authorization_details must be an array of 1 to ${MAX_ENTRIES} objects.` };
  const ids: string[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      return { ok: false, description: 'Each authorization_details entry must be an object.' };
    const { type, credential_configuration_id: id } = entry as Record<string, unknown>;
    if (type !== 'openid_credential')
      return { ok: false, description: 'Only authorization_details of type openid_credential are supported.' };
    if (typeof id !== 'string' || !ID.test(id))
      return { ok: false, description: 'credential_configuration_id is required in each openid_credential entry.' };
    if (!allowed.includes(id))
      return { ok: false, description: `The credential configuration ${id} is not offered for this session.` };
    if (!ids.includes(id)) ids.push(id);
  }
  return { ok: true, configurationIds: ids };
}
