import type { ListType, StatusPurpose } from './list-definition.js';
import type { StatusBits } from './status-bits.js';
import { badInput } from './errors.js';

/**
 * Status values and their names. Token Status List §7.1: 0 VALID, 1 INVALID, 2 SUSPENDED, 3 and up application
 * specific. A W3C list has one bit whose meaning is the list's purpose (Bitstring Status List §2.1): set means
 * revoked on a revocation list, suspended on a suspension list.
 */
export interface StatusListShape {
  type: ListType;
  statusPurpose: StatusPurpose;
  bits: StatusBits;
}

export type StatusInput = string | number;

const W3C_NAMES: Record<'revocation' | 'suspension', string> = { revocation: 'revoked', suspension: 'suspended' };

export function statusValueOf(input: StatusInput, list: StatusListShape): number {
  if (typeof input === 'number') {
    if (!Number.isInteger(input) || input < 0 || input >= 1 << list.bits) {
      throw badInput(
        `Status value ${input} does not fit in ${list.bits} bit${list.bits === 1 ? '' : 's'} (0 to ${(1 << list.bits) - 1}).`,
        'status',
      );
    }
    return input;
  }
  if (input === 'valid') return 0;
  if (list.type !== 'OAuthStatusList') {
    const flagged = W3C_NAMES[list.statusPurpose as 'revocation' | 'suspension'];
    const accepted = list.statusPurpose === 'revocation' ? ['revoked', 'invalid'] : ['suspended'];
    if (accepted.includes(input)) return 1;
    throw badInput(`A ${list.statusPurpose} list holds valid or ${flagged}; got ${JSON.stringify(input)}.`, 'status');
  }
  if (input === 'invalid' || input === 'revoked') return 1;
  if (input === 'suspended') {
    if (list.bits < 2) throw badInput('suspended (2) does not fit in a list of 1 bit per status.', 'status');
    return 2;
  }
  throw badInput(
    `Unknown status ${JSON.stringify(input)}; valid, invalid (revoked), suspended, or an integer value.`,
    'status',
  );
}

export function statusNameOf(value: number, list: StatusListShape): string {
  if (value === 0) return 'valid';
  if (list.type !== 'OAuthStatusList') return W3C_NAMES[list.statusPurpose as 'revocation' | 'suspension'];
  if (value === 1) return 'invalid';
  if (value === 2) return 'suspended';
  return 'application-specific';
}

/** Revocation cannot be undone (Bitstring Status List §2.1 "not reversible"; Token Status List INVALID). */
export const isFinalStatus = (value: number, list: StatusListShape): boolean =>
  value === 1 && list.statusPurpose === 'revocation';
