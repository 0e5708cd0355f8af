import { AppError } from '@tessera/platform';
import { SNAPSHOT_COMMANDS } from '../domain/kinds.js';
import { refreshSnapshot as refresh } from '../import/refresh-snapshot.js';
import type { DesignsServices } from '../services.js';
import { designCommand } from './design-commands.js';

export interface SnapshotRefreshOutput {
  snapshotId: string;
  status: 'UNCHANGED' | 'UPDATED';
  fetchedAt: string;
  checkedAt: string;
  etag?: string;
  lastModified?: string;
  designIds: string[];
}

/**
 * POST /designs/snapshots/{snapshotId}/refresh (001 §4.1, body and response "not shown"): the conditional re-fetch;
 * answers whether the source changed, the snapshot's times and validators, and the designs mapped again.
 */
export const refreshSnapshot = (s: DesignsServices) =>
  designCommand<{ snapshotId: string }, SnapshotRefreshOutput>(s, {
    id: `${SNAPSHOT_COMMANDS}.refresh`,
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      snapshotId: input.snapshotId,
      ...(output ? { status: output.status } : {}),
    }),
    async run(ctx, input) {
      const result = await refresh(s, ctx, input.snapshotId);
      if (!result) throw new AppError('not_found', 'No such snapshot in this tenant.');
      const { snapshot } = result;
      return {
        snapshotId: snapshot.id,
        status: result.status,
        fetchedAt: snapshot.fetchedAt,
        checkedAt: snapshot.checkedAt,
        ...(snapshot.etag ? { etag: snapshot.etag } : {}),
        ...(snapshot.lastModified ? { lastModified: snapshot.lastModified } : {}),
        designIds: result.designIds,
      };
    },
  });
