import { isStatusBits, type StatusBits } from './status-bits.js';
import { badInput } from './errors.js';

/**
 * The body of POST /vc/status-lists (001 §2.4) checked and normalized. The names the specification leaves open
 * (001 §4.3) follow the status-list libraries that first used this body: `keyRef` for the signing key and
 * `statusPurpose` for the purpose; `length` and its misspelling `lenght` are both accepted.
 */
export const LIST_TYPES = ['OAuthStatusList', 'StatusList2021', 'BitstringStatusList'] as const;
export type ListType = (typeof LIST_TYPES)[number];

export const STATUS_PURPOSES = ['revocation', 'suspension', 'message'] as const;
export type StatusPurpose = (typeof STATUS_PURPOSES)[number];

export const PROOF_FORMATS = ['jwt', 'ldp'] as const;

/** An id names one list in its tenant and is the last segment of its public URI (`~` is kept for roll-overs). */
export const LIST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** The id of any stored list: a caller's id, or a roll-over's `<id>~<generation>`. */
export const STORED_LIST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(~[0-9]{1,9})?$/;

export interface CreateListBody {
  type: string;
  id: string;
  issuer: string;
  correlationId?: string | undefined;
  keyRef?: string | undefined;
  length?: number | undefined;
  lenght?: number | undefined;
  proofFormat: string;
  statusPurpose?: string | undefined;
  oauthStatusList?: { bitsPerStatus?: number | undefined } | undefined;
}

export interface LengthBounds {
  defaultLength: number;
  minLength: number;
  maxLength: number;
}

/** What a list is, apart from where it lives: a roll-over list copies it. */
export interface ListConfiguration {
  type: ListType;
  statusPurpose: StatusPurpose;
  bits: StatusBits;
  length: number;
  issuer: string;
  proofFormat: 'jwt';
}

export interface ListRequest extends ListConfiguration {
  /** The id as given (a bare id or the list's public URI). */
  id: string;
  keyRef: string | null;
  correlationId: string | null;
}

const F = 'statusList';

export function parseListRequest(body: CreateListBody, bounds: LengthBounds): ListRequest {
  const type = body.type as ListType;
  if (!LIST_TYPES.includes(type)) {
    throw badInput(
      `Unknown status list type ${JSON.stringify(body.type)}; one of ${LIST_TYPES.join(', ')}.`,
      `${F}.type`,
    );
  }
  if (body.proofFormat === 'ldp') {
    // packages/status-lists/README.md, Decisions: no Data Integrity proofs (no maintained signer with bundled contexts here).
    throw badInput(
      'proofFormat ldp (a Data Integrity proof) is not supported by this service; use proofFormat jwt.',
      `${F}.proofFormat`,
    );
  }
  if (body.proofFormat !== 'jwt') {
    throw badInput(`Unknown proofFormat ${JSON.stringify(body.proofFormat)}; jwt is supported.`, `${F}.proofFormat`);
  }
  const statusPurpose = (body.statusPurpose ?? 'revocation') as StatusPurpose;
  if (!STATUS_PURPOSES.includes(statusPurpose)) {
    throw badInput(
      `Unknown statusPurpose ${JSON.stringify(body.statusPurpose)}; one of ${STATUS_PURPOSES.join(', ')}.`,
      `${F}.statusPurpose`,
    );
  }
  const bits = body.oauthStatusList?.bitsPerStatus ?? 1;
  if (!isStatusBits(bits)) {
    throw badInput(`bitsPerStatus ${String(bits)} is not one of 1, 2, 4, 8.`, `${F}.oauthStatusList.bitsPerStatus`);
  }
  if (type !== 'OAuthStatusList' && bits !== 1) {
    throw badInput(
      `A ${type} holds one bit per status; bitsPerStatus applies to OAuthStatusList.`,
      `${F}.oauthStatusList.bitsPerStatus`,
    );
  }
  if (statusPurpose === 'message' && (type !== 'OAuthStatusList' || bits === 1)) {
    throw badInput(
      'statusPurpose message needs an OAuthStatusList of 2, 4 or 8 bits per status.',
      `${F}.statusPurpose`,
    );
  }
  return {
    type,
    id: body.id,
    statusPurpose,
    bits,
    length: parseLength(body, bounds),
    issuer: body.issuer,
    proofFormat: 'jwt',
    keyRef: parseKeyRef(body.keyRef),
    correlationId: body.correlationId ?? null,
  };
}

function parseLength(body: CreateListBody, bounds: LengthBounds): number {
  if (body.length !== undefined && body.lenght !== undefined && body.length !== body.lenght) {
    throw badInput('length and lenght (its accepted spelling variant) disagree; send one of them.', `${F}.length`);
  }
  const length = body.length ?? body.lenght ?? bounds.defaultLength;
  if (!Number.isSafeInteger(length) || length < bounds.minLength || length > bounds.maxLength) {
    throw badInput(
      `length must be an integer from ${bounds.minLength} to ${bounds.maxLength} (entries); got ${String(length)}.`,
      `${F}.length`,
    );
  }
  return length;
}

function parseKeyRef(keyRef: string | undefined): string | null {
  if (keyRef === undefined) return null;
  if (keyRef.length === 0 || keyRef.length > 200) throw badInput('keyRef must be 1 to 200 characters.', `${F}.keyRef`);
  return keyRef;
}

/**
 * The list id of a request: the bare id, or the list's own public URI (`<base>/status-lists/<id>`), as a caller
 * that names lists by their credential id sends it.
 */
export function listIdOf(id: string, publicationBase: string): string {
  const bare = id.startsWith(`${publicationBase}/`) ? id.slice(publicationBase.length + 1) : id;
  if (!LIST_ID_PATTERN.test(bare)) {
    throw badInput(
      `statusList.id must be 1 to 100 letters, digits, dot, dash or underscore, or ${publicationBase}/<such an id>.`,
      `${F}.id`,
    );
  }
  return bare;
}

/** Roll-over lists of a series are named `<first id>~<generation>` (a character ids given by callers never hold). */
export const rolloverListId = (seriesId: string, generation: number): string =>
  generation === 1 ? seriesId : `${seriesId}~${generation}`;
