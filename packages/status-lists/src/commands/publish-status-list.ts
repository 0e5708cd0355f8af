import { defineCommand } from '@tessera/platform';
import type { Publication } from '../publication/list-publisher.js';
import type { StatusListServices } from '../services.js';

export const PUBLISH_STATUS_LIST = 'status-list.publish';

/**
 * GET /status-lists/{listId} (issue 16 §2): the current signed list, public. Not audited per read (`audit: self`
 * and nothing written): it is the most frequent and least sensitive request of the role, and every change it
 * reflects was audited when it was made.
 */
export const publishStatusList = (s: StatusListServices) =>
  defineCommand<{ listId: string }, Publication>({
    id: PUBLISH_STATUS_LIST,
    access: 'public',
    audit: 'self',
    run: (ctx, { listId }) => s.publisher.current(ctx.tenantId, listId),
  });
