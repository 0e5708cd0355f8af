import type { AccessKind, Command, ExecutionContext } from '@tessera/platform';
import type { DesignsServices } from '../services.js';

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
  return { ...command, audit: audited ? 'auto' : 'self' };
}
