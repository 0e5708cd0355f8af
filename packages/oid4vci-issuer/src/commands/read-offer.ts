import { AppError, defineCommand } from '@tessera/platform';
import type { Oid4vciServices } from '../services.js';
import { offerStore } from '../storage/offer-store.js';
import { READ_OFFER } from './ids.js';

/**
 * GET /oid4vci/credential-offers/{id} (OpenID4VCI 1.0 §4.1.3, `credential_offer_uri`): the offer object, public
 * (the id is 256 random bits); 404 once expired.
 */
export const readOffer = (s: Oid4vciServices) =>
  defineCommand<{ offerId: string }, Record<string, unknown>>({
    id: READ_OFFER,
    access: 'public',
    async run(ctx, { offerId }) {
      const row = await s.platform.db.withTenantSession(ctx.tenantId, (sql) => offerStore.byId(sql, offerId));
      if (!row || row.expiresAt <= s.clock.now())
        throw new AppError('not_found', 'No live credential offer with this id.');
      return row.offer;
    },
  });
