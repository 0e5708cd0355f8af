import { TenantBatcher, type Database, type Sql, type TenantBatcherOptions } from '@tessera/platform';
import {
  grantStore,
  type CodeRedeemed,
  type CodeRedemption,
  type RefreshRedeemed,
  type RefreshRedemption,
} from './grant-store.js';

/**
 * The token endpoint's redemptions, batched per tenant (the platform's TenantBatcher): the codes and refresh tokens
 * presented while a tenant's statement is in flight are redeemed together by the next one, so that a busy endpoint
 * pays one round trip per batch rather than one per token. Each item is checked exactly as it would be alone (the
 * statements of grant-store.ts); what one statement decides for a token, every other replica sees at once, since
 * nothing is held in memory between batches.
 *
 * A token presented twice in one batch (concurrent refreshes with the same token) would meet itself in one
 * statement: the repeats go to a second statement of the same session, which finds the token rotated (or the code
 * consumed) by the first and so refuses them, as a reuse, exactly as separate requests would be.
 */
export class GrantRedemptions {
  private readonly codes: TenantBatcher<CodeRedemption, CodeRedeemed>;
  private readonly refreshes: TenantBatcher<RefreshRedemption, RefreshRedeemed>;

  constructor(db: Database, options: TenantBatcherOptions = {}) {
    this.codes = new TenantBatcher(
      (tenantId, items) =>
        inRounds(
          db,
          tenantId,
          items,
          (item) => item.codeHash,
          (sql, round) => grantStore.redeemCodes(sql, round),
        ),
      options,
    );
    this.refreshes = new TenantBatcher(
      (tenantId, items) =>
        inRounds(
          db,
          tenantId,
          items,
          (item) => item.tokenHash,
          (sql, round) => grantStore.redeemRefreshTokens(sql, round),
        ),
      options,
    );
  }

  redeemCode(tenantId: string, input: CodeRedemption): Promise<CodeRedeemed> {
    return this.codes.load(tenantId, input);
  }

  redeemRefreshToken(tenantId: string, input: RefreshRedemption): Promise<RefreshRedeemed> {
    return this.refreshes.load(tenantId, input);
  }
}

/**
 * Splits a batch into rounds whose keys are distinct (a key's first presentation in the first round, its second in
 * the second, and so on), in arrival order.
 */
export function distinctRounds<T>(items: readonly T[], key: (item: T) => string): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const k = key(item);
    const round = seen.get(k) ?? 0;
    seen.set(k, round + 1);
    (rounds[round] ??= []).push(index);
  });
  return rounds;
}

/** One tenant session: one statement per round, in order; every item settles with its own answer. */
async function inRounds<Q, R>(
  db: Database,
  tenantId: string,
  items: readonly Q[],
  key: (item: Q) => string,
  redeem: (sql: Sql, round: Q[]) => Promise<R[]>,
): Promise<PromiseSettledResult<R>[]> {
  return db.withTenantSession(tenantId, async (sql) => {
    const results = new Array<PromiseSettledResult<R>>(items.length);
    for (const round of distinctRounds(items, key)) {
      const answers = await redeem(
        sql,
        round.map((i) => items[i]!),
      );
      round.forEach((itemIndex, j) => {
        results[itemIndex] = { status: 'fulfilled', value: answers[j]! };
      });
    }
    return results;
  });
}
