import { describe, expect, it } from 'vitest';
import { MAX_OFFSET, pageRequest, paginationOf } from './pagination.js';

const bounds = { defaultPageSize: 20, maxPageSize: 200 };

describe('pagination', () => {
  it('takes limit and offset, or page (from 0) and size, and answers in the style asked', () => {
    const offset = pageRequest({ limit: 10, offset: 30 }, bounds);
    expect(offset).toEqual({ limit: 10, offset: 30, style: 'offset', withTotal: false });
    expect(paginationOf(offset, true, undefined)).toEqual({ limit: 10, offset: 30, hasMore: true });
    const page = pageRequest({ page: 3, size: 10, total: true }, bounds);
    expect(page).toEqual({ limit: 10, offset: 30, style: 'page', withTotal: true });
    expect(paginationOf(page, false, 31)).toEqual({ page: 3, size: 10, hasMore: false, total: 31 });
  });

  it('clamps the size and defaults it', () => {
    expect(pageRequest({ limit: 10_000 }, bounds).limit).toBe(200);
    expect(pageRequest({ size: 10_000, page: 1 }, bounds)).toMatchObject({ limit: 200, offset: 200 });
    expect(pageRequest({}, bounds)).toMatchObject({ limit: 20, offset: 0, style: 'offset' });
  });

  it('refuses mixed styles and pages deeper than the bound', () => {
    expect(() => pageRequest({ limit: 5, page: 1 }, bounds)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => pageRequest({ offset: MAX_OFFSET + 1 }, bounds)).toThrow(expect.objectContaining({ field: 'offset' }));
    expect(() => pageRequest({ page: MAX_OFFSET, size: 2 }, bounds)).toThrow(
      expect.objectContaining({ field: 'page' }),
    );
  });
});
