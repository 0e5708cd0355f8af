/**
 * Whether the database answers, asked at most once per `ttlMs` however many requests ask (concurrent askers share
 * one ping). For endpoints whose answer is made in memory but whose promise is that the service works: the token
 * service's discovery answers 503 while its database is unreachable (000 §4.5 "answers 200 when healthy").
 */
export class DatabaseReachability {
  private last = { at: Number.NEGATIVE_INFINITY, ok: true };
  private inflight: Promise<boolean> | null = null;

  constructor(
    private readonly db: { ping(timeoutMs?: number): Promise<void> },
    private readonly ttlMs = 1000,
    private readonly timeoutMs = 2000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  reachable(): Promise<boolean> | boolean {
    if (this.now() - this.last.at < this.ttlMs) return this.last.ok;
    this.inflight ??= this.db.ping(this.timeoutMs).then(
      () => this.settle(true),
      () => this.settle(false),
    );
    return this.inflight;
  }

  private settle(ok: boolean): boolean {
    this.last = { at: this.now(), ok };
    this.inflight = null;
    return ok;
  }
}
