import { AppError } from '@tessera/platform';

/**
 * Strict JSON request bodies of the external API (security checklist "External API, tenancy, input"): UTF-8 only
 * (an invalid byte sequence is refused, not replaced), no duplicate member names in any object (RFC 8259 §4 leaves
 * their meaning open, and JSON.parse would silently keep the last), no `__proto__` member, and at most `maxDepth`
 * nested arrays and objects (deeper input is refused before any recursive step could exhaust the stack). Pure.
 */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const bad = (message: string) => new AppError('invalid_request', message);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  object: boolean;
  keys: Set<string> | null;
  expectKey: boolean;
}

/** Throws invalid_request for anything but one strict JSON text; returns its value. */
export function parseStrictJson(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw bad('The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw bad('The request body is empty.');
  scan(text, maxDepth);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bad('The request body is not valid JSON.');
  }
}

/**
 * One pass over the text (iterative, no recursion): nesting depth, duplicate and `__proto__` member names. It
 * assumes nothing about validity: on malformed text it stops or moves on, and JSON.parse refuses the text after.
 */
function scan(text: string, maxDepth: number): void {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== QUOTE) j += text.charCodeAt(j) === BACKSLASH ? 2 : 1;
      if (j >= text.length) return;
      const top = stack[stack.length - 1];
      if (top?.object && top.expectKey) {
        let name: string;
        try {
          name = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return;
        }
        if (name === '__proto__') throw bad('The request body holds a member named __proto__.');
        if (top.keys!.has(name)) throw bad('The request body repeats a member name within one object.');
        top.keys!.add(name);
        top.expectKey = false;
      }
      i = j;
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        if (stack.length >= maxDepth) throw bad(`The request body is nested deeper than ${maxDepth} levels.`);
        stack.push({ object: c === 0x7b, keys: c === 0x7b ? new Set() : null, expectKey: c === 0x7b });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      case 0x2c: {
        // ,
        const top = stack[stack.length - 1];
        if (top?.object) top.expectKey = true;
        break;
      }
    }
  }
}
