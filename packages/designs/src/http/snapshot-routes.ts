import { commandContext, type RoleApp } from '@tessera/platform';
import { getSnapshot } from '../commands/get-snapshot.js';
import { refreshSnapshot } from '../commands/refresh-snapshot.js';
import type { DesignsServices } from '../services.js';
import { DESIGNS_BASE_PATH } from './design-routes.js';
import { SnapshotIdParams, SnapshotRefreshResult } from './schemas.js';

/**
 * Source snapshots (001 §4.1): GET answers the raw fetched payload with its stored content type; the source's URL
 * is `Content-Location`, its validators and the snapshot's times are headers. POST .../refresh re-fetches
 * conditionally.
 */
export function registerSnapshotRoutes(app: RoleApp, s: DesignsServices): void {
  const bus = s.platform.commands;
  const tags = ['snapshots'];
  const commands = { get: getSnapshot(s), refresh: refreshSnapshot(s) };

  app.get(
    `${DESIGNS_BASE_PATH}/snapshots/:snapshotId`,
    { schema: { tags, summary: 'The raw payload an import fetched', params: SnapshotIdParams } },
    async (request, reply) => {
      const snapshot = await bus.execute(commands.get, commandContext(request), request.params);
      reply
        .header('content-type', snapshot.contentType || 'application/octet-stream')
        .header('content-location', snapshot.sourceUrl)
        .header('source-type', snapshot.sourceType)
        .header('snapshot-fetched-at', snapshot.fetchedAt)
        .header('snapshot-checked-at', snapshot.checkedAt)
        .header('snapshot-sha256', snapshot.sha256)
        .header('x-content-type-options', 'nosniff');
      if (snapshot.etag) reply.header('source-etag', snapshot.etag);
      if (snapshot.lastModified) reply.header('source-last-modified', snapshot.lastModified);
      return reply.send(snapshot.payload);
    },
  );

  app.post(
    `${DESIGNS_BASE_PATH}/snapshots/:snapshotId/refresh`,
    {
      schema: {
        tags,
        summary: 'Re-fetch a snapshot conditionally and map its designs again when it changed',
        params: SnapshotIdParams,
        response: { 200: SnapshotRefreshResult },
      },
    },
    async (request) => bus.execute(commands.refresh, commandContext(request), request.params),
  );
}
