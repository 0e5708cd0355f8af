/**
 * Batches the reads of one tenant (DataLoader style) so that concurrent requests share a round trip: items that
 * arrive while the tenant's statements are in flight (or in the same tick) are answered by the next one, over all
 * of them at once. Batches are per tenant: the statement runs in that tenant's scope, so that row-level security
 * still decides what each item may see, and no statement ever mixes two tenants' items.
 *
 * Nothing is cached: every item is read by a statement that starts after it arrived, so a write committed before
 * a request (an erasure, 000 §4.3 DELETE) is seen by it, on every replica.
 *
 * `run` answers one settled result per item, in order: an item can fail alone. When `run` itself fails, every
 * item of the batch fails with that error; later batches are unaffected.
 */
export interface TenantBatcherOptions {
  /** Items per statement at most. Default 64. */
  maxBatchSize?: number;
  /** Statements of one tenant in flight at once. Default 1: what arrives meanwhile makes the next batch. */
  maxInFlight?: number;
}

export type BatchRunner<Q, R> = (tenantId: string, items: readonly Q[]) => Promise<PromiseSettledResult<R>[]>;

interface Waiter<Q, R> {
  item: Q;
  resolve: (value: R) => void;
  reject: (reason: unknown) => void;
}

interface TenantQueue<Q, R> {
  waiting: Waiter<Q, R>[];
  inFlight: number;
  scheduled: boolean;
}

export class TenantBatcher<Q, R> {
  private readonly queues = new Map<string, TenantQueue<Q, R>>();
  private readonly maxBatchSize: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly run: BatchRunner<Q, R>,
    options: TenantBatcherOptions = {},
  ) {
    this.maxBatchSize = options.maxBatchSize ?? 64;
    this.maxInFlight = options.maxInFlight ?? 1;
    if (!(this.maxBatchSize >= 1) || !(this.maxInFlight >= 1))
      throw new RangeError('batch size and in-flight limit must be at least 1');
  }

  load(tenantId: string, item: Q): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let queue = this.queues.get(tenantId);
      if (!queue) this.queues.set(tenantId, (queue = { waiting: [], inFlight: 0, scheduled: false }));
      queue.waiting.push({ item, resolve, reject });
      if (!queue.scheduled && queue.inFlight < this.maxInFlight) {
        // The rest of this tick's items join the batch before it leaves.
        queue.scheduled = true;
        process.nextTick(() => this.dispatch(tenantId, queue));
      }
    });
  }

  private dispatch(tenantId: string, queue: TenantQueue<Q, R>): void {
    queue.scheduled = false;
    while (queue.waiting.length > 0 && queue.inFlight < this.maxInFlight) {
      const batch = queue.waiting.splice(0, this.maxBatchSize);
      queue.inFlight++;
      void this.execute(tenantId, batch).finally(() => {
        queue.inFlight--;
        if (queue.waiting.length > 0) this.dispatch(tenantId, queue);
        else if (queue.inFlight === 0 && !queue.scheduled) this.queues.delete(tenantId);
      });
    }
  }

  private async execute(tenantId: string, batch: Waiter<Q, R>[]): Promise<void> {
    let results: PromiseSettledResult<R>[];
    try {
      results = await this.run(
        tenantId,
        batch.map((w) => w.item),
      );
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} got ${results.length} results`);
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
      return;
    }
    batch.forEach((waiter, i) => {
      const result = results[i]!;
      if (result.status === 'fulfilled') waiter.resolve(result.value);
      else waiter.reject(result.reason);
    });
  }
}
