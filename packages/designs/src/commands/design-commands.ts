import type { AccessKind, Command, ExecutionContext } from '@tessera/platform';
import type { DesignsServices } from '../services.js';
import { DESIGNS_CHANGED_CHANNEL } from './resolve-cache.js';

/**
 * Shared shape of the registry's commands: reads are audited only when `designs.auditReads` is on (they carry no
 * personal data and run at high rates); every mutation is audited by the command bus (001 §6), as is every denial.
 * A mutation writes through `ctx.unitOfWork`, so that its change and its audit event commit together (issue 13 §7).
 */
export function designCommand<I, O>(
  s: DesignsServices,
  command: {
    id: string;
    access: AccessKind;
    businessIds?: (input: I, output: O | undefined) => Record<string, string>;
    run(ctx: ExecutionContext, input: I): Promise<O>;
  },
): Command<I, O> {
  const audited = command.access !== 'read' || s.config.auditReads;
  if (command.access === 'read') return { ...command, audit: audited ? 'auto' : 'self' };
  const run = command.run;
  return {
    ...command,
    audit: 'auto',
    // The registry's changes reach other replicas' resolve caches as notifications (resolve-cache.ts); this one's
    // drops the tenant's entries as soon as the write is done, so that a read after it here is never stale. In a
    // caller's unit of work the commit comes later: the entries are dropped again once it has.
    async run(ctx, input) {
      try {
        return await run(ctx, input);
      } finally {
        s.platform.db.changes.announce(DESIGNS_CHANGED_CHANNEL, ctx.tenantId);
        ctx.unit?.afterCommit(async () => s.platform.db.changes.announce(DESIGNS_CHANGED_CHANNEL, ctx.tenantId));
      }
    },
  };
}
