import { defineCommand, type Command } from '../../commands/index.js';
import { invalidRequest } from '../../errors/index.js';
import type { KeyInfo, KeyManager } from '../key-manager.js';

export const ROTATE_SIGNING_KEY = 'platform.keys.rotate-signing-key';

export interface RotateSigningKeyInput {
  alias: string;
  /** How long the retired version stays in published key sets; default a day and an hour (decisions). */
  retainSeconds?: number;
}

/**
 * Rotates a signing key (issue 3 §8: keys rotate without breaking tokens in flight): a new active version signs from
 * now on, in this process at once and in every other within the key manager's recheck interval; the retired one
 * stays published for `retainSeconds`, so tokens it signed still verify. Platform administrators only (the
 * operators' `npm run signing-keys -- rotate`); audited with the alias and both kids.
 */
export function rotateSigningKeyCommand(
  keys: KeyManager,
): Command<RotateSigningKeyInput, { retired: string; active: KeyInfo }> {
  return defineCommand({
    id: ROTATE_SIGNING_KEY,
    access: 'admin',
    businessIds: (input, output) => ({
      alias: input.alias,
      ...(output ? { retiredKid: output.retired, activeKid: output.active.kid } : {}),
    }),
    async run(ctx, input) {
      if (typeof input.alias !== 'string' || input.alias.length === 0)
        throw invalidRequest('An alias is required.', 'alias');
      if (input.retainSeconds !== undefined && !(Number.isInteger(input.retainSeconds) && input.retainSeconds >= 0))
        throw invalidRequest('retainSeconds must be a whole number of seconds, 0 or more.', 'retainSeconds');
      const retired = (await keys.publicJwk(input.alias)).kid!;
      // The new version and the audit event commit together: a rotation answered with an error did not happen, so
      // the operator's retry rotates once (issue 13 §7).
      const active = await ctx.unitOfWork((_sql, unit) =>
        keys.rotate(input.alias, {
          unit,
          ...(input.retainSeconds === undefined ? {} : { retainSeconds: input.retainSeconds }),
        }),
      );
      return { retired, active };
    },
  });
}
