import type { ClaimPath } from './select-credentials.js';

export type PresentationFrame = { [key: string]: boolean | PresentationFrame };

/**
 * Turns claims path pointers (OpenID4VP 1.0 §7) into the @sd-jwt presentation frame: nested objects keyed by member
 * name or array position, `true` at the leaf. A null element (every array element) is expanded against the claims.
 */
export function buildPresentationFrame(paths: ClaimPath[], claims: Record<string, unknown>): PresentationFrame {
  const frame: PresentationFrame = {};
  const add = (target: PresentationFrame, path: ClaimPath, value: unknown): void => {
    const [head, ...rest] = path;
    if (head === undefined) return;
    const keys = head === null ? (Array.isArray(value) ? value.map((_, index) => String(index)) : []) : [String(head)];
    for (const key of keys) {
      const child = (value as Record<string, unknown> | undefined)?.[key];
      if (rest.length === 0) {
        target[key] = true;
        continue;
      }
      const existing = target[key];
      const next: PresentationFrame = typeof existing === 'object' ? existing : {};
      target[key] = next;
      add(next, rest, child);
    }
  };
  for (const path of paths) add(frame, path, claims);
  return frame;
}
