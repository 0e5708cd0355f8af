import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time-equal.js';
import { escapeHtml } from '../http/escape-html.js';

describe('constantTimeEqual', () => {
  it('compares strings and bytes of any length without throwing', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual(Buffer.from([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(Buffer.from([1, 2, 3]), Buffer.from([1, 2]))).toBe(false);
    // A string and the bytes of its UTF-8 form are the same secret.
    expect(constantTimeEqual('é', Buffer.from('é', 'utf8'))).toBe(true);
  });
});

describe('escapeHtml', () => {
  it('writes the five characters that end element content or a quoted attribute as entities', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    expect(escapeHtml(42)).toBe('42');
  });
});
