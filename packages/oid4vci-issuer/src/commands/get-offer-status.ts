import { AppError, defineCommand } from '@tessera/platform';
import type { Oid4vciServices } from '../services.js';
import { offerStore } from '../storage/offer-store.js';
import { GET_OFFER_STATUS } from './ids.js';

export interface OfferStatus {
  correlation_id: string;
  credential_offer: Record<string, unknown>;
  offer_expires_at: string;
  offer_expired: boolean;
  /** The pipeline session's state (null once it expired and was purged). */
  session: { status: string; phase: string; completed_phases: string[]; expires_at: string } | null;
}

/** GET /api/oid4vci/v1/backend/credential/offers/{correlation_id} (001 §4.2): the offer and where its session is. */
export const getOfferStatus = (s: Oid4vciServices) =>
  defineCommand<{ correlationId: string }, OfferStatus>({
    id: GET_OFFER_STATUS,
    access: 'read',
    businessIds: (input) => ({ correlationId: input.correlationId }),
    async run(ctx, { correlationId }) {
      const row = await s.platform.db.withTenantSession(ctx.tenantId, (sql) =>
        offerStore.byCorrelationId(sql, correlationId),
      );
      if (!row) throw new AppError('not_found', 'No credential offer for this correlation id.');
      const session = await s.sessions.get(ctx.tenantId, correlationId);
      return {
        correlation_id: correlationId,
        credential_offer: row.offer,
        offer_expires_at: row.expiresAt.toISOString(),
        offer_expired: row.expiresAt <= s.clock.now(),
        session: session
          ? {
              status: session.status,
              phase: session.phase,
              completed_phases: session.completed_phases,
              expires_at: session.expires_at,
            }
          : null,
      };
    },
  });
