import type { CommandContext } from '@tessera/platform';
import type { AccessRestrictions } from '../domain/key-entry.js';
import type { AccessRestrictionsInT } from '../http/schemas.js';

/** Access restrictions of a new key entry: the caller is its subject (002 §2.1: subjectId in responses only). */
export function accessOf(ctx: CommandContext, input: AccessRestrictionsInT | undefined): AccessRestrictions {
  return {
    subjectId: ctx.principal?.id ?? 'anonymous',
    accessLevel: input?.accessLevel ?? 'TENANT',
    roleRestrictions: input?.roleRestrictions ?? [],
  };
}
