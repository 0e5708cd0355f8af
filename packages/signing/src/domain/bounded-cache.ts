/**
 * A small map that forgets its oldest entry beyond `limit`: parsed certificates are reused across signatures of
 * the same key entry (parsing one with pkijs costs milliseconds), without growing with every certificate seen.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string, make: () => V): V {
    const found = this.entries.get(key);
    if (found !== undefined) return found;
    const value = make();
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}
