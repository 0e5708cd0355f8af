/**
 * Reads standard input to its end as one line of UTF-8: the trailing line break of `echo` or a terminal is not part
 * of the value. For command-line tools that take a secret or an identifier from standard input, so that it stays
 * out of the shell history and the process list.
 */
export async function readStdinLine(input: AsyncIterable<Buffer | string> = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
