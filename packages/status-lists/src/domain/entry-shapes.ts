import type { ListType, StatusPurpose } from './list-definition.js';

/**
 * What a credential carries to point at its entry: Token Status List §6.2 (`status.status_list {idx, uri}`, SD-JWT
 * VC and JWT credentials), Bitstring Status List §2.1 (`credentialStatus` of type BitstringStatusListEntry) and
 * StatusList2021 §2.1 (StatusList2021Entry). `statusListIndex` is a string of digits in both W3C forms.
 */
export interface AllocatedEntry {
  listId: string;
  index: number;
  uri: string;
  status?: { status_list: { idx: number; uri: string } };
  credentialStatus?: {
    id: string;
    type: 'BitstringStatusListEntry' | 'StatusList2021Entry';
    statusPurpose: StatusPurpose;
    statusListIndex: string;
    statusListCredential: string;
  };
}

export function entryShape(
  list: { listId: string; type: ListType; statusPurpose: StatusPurpose },
  index: number,
  uri: string,
): AllocatedEntry {
  if (list.type === 'OAuthStatusList') {
    return { listId: list.listId, index, uri, status: { status_list: { idx: index, uri } } };
  }
  return {
    listId: list.listId,
    index,
    uri,
    credentialStatus: {
      id: `${uri}#${index}`,
      type: list.type === 'BitstringStatusList' ? 'BitstringStatusListEntry' : 'StatusList2021Entry',
      statusPurpose: list.statusPurpose,
      statusListIndex: String(index),
      statusListCredential: uri,
    },
  };
}
