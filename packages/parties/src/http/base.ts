/** 001 §4.4, §9: the party API's base path, version in the path. */
export const PARTY_BASE_PATH = '/api/party/v1';

/** Request bodies of the party API are small records; a 10,000-entry member list or a 1 MB body is refused (413). */
export const PARTY_BODY_LIMIT_BYTES = 64 * 1024;

export const NO_STORE = { 'cache-control': 'no-store' };
