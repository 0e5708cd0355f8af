import { describe, expect, it } from 'vitest';
import { readStdinLine } from './read-stdin-line.js';

async function* chunks(...parts: (string | Buffer)[]): AsyncIterable<Buffer | string> {
  for (const part of parts) yield part;
}

describe('readStdinLine', () => {
  it('joins the chunks as UTF-8 and drops one trailing line break, nothing else', async () => {
    expect(await readStdinLine(chunks('s3cr', Buffer.from('et\n')))).toBe('s3cret');
    expect(await readStdinLine(chunks('windows\r\n'))).toBe('windows');
    expect(await readStdinLine(chunks('  spaced  \n\n'))).toBe('  spaced  \n');
    // A multi-byte character split between two chunks is decoded whole.
    const euro = Buffer.from('€', 'utf8');
    expect(await readStdinLine(chunks(euro.subarray(0, 1), euro.subarray(1)))).toBe('€');
    expect(await readStdinLine(chunks())).toBe('');
  });
});
