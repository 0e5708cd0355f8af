import { describe, expect, it } from 'vitest';
import { OutcomeWriter } from './outcome-writer.js';

describe('OutcomeWriter', () => {
  it('writes the first outcome alone and those that arrive during that write together', async () => {
    const writes: number[][] = [];
    let release: (() => void) | undefined;
    const writer = new OutcomeWriter<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = writer.record(1);
    const later = [writer.record(2), writer.record(3), writer.record(4)];
    await Promise.resolve();
    expect(writes).toEqual([[1]]);
    release!();
    await Promise.all([first, ...later]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    await writer.record(5);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('fails the outcomes of a failed write, and goes on with the next ones', async () => {
    let fail = true;
    const written: number[] = [];
    const writer = new OutcomeWriter<number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error('database gone');
      }
      written.push(...items);
    });
    await expect(writer.record(1)).rejects.toThrow('database gone');
    await writer.record(2);
    expect(written).toEqual([2]);
  });
});
