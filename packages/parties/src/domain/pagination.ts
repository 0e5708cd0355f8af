import { invalidRequest } from '@tessera/platform';

/**
 * Pagination of every list (001 §4.4, §8): `limit` + `offset`, or `page` + `size` (page counted from 0, as in
 * Spring Data's Pageable, where this pair comes from). The page size is clamped to [1, maxPageSize]; the two styles
 * cannot be mixed. README.md "Decisions" records the bounds.
 */
/** Deeper pages cost a scan of every entry before them: beyond this, narrow the filter instead. */
export const MAX_OFFSET = 100_000;

export interface PageRequest {
  limit: number;
  offset: number;
  style: 'offset' | 'page';
  /** Count the matches too (a second pass over them: opt-in, `total=true`). */
  withTotal: boolean;
}

export interface PageParams {
  limit?: number | undefined;
  offset?: number | undefined;
  page?: number | undefined;
  size?: number | undefined;
  total?: boolean | undefined;
}

export interface PageBounds {
  defaultPageSize: number;
  maxPageSize: number;
}

export function pageRequest(params: PageParams, bounds: PageBounds): PageRequest {
  const offsetStyle = params.limit !== undefined || params.offset !== undefined;
  const pageStyle = params.page !== undefined || params.size !== undefined;
  if (offsetStyle && pageStyle)
    throw invalidRequest(
      'Use limit and offset, or page and size, not both.',
      params.page !== undefined ? 'page' : 'size',
    );
  const clamp = (n: number | undefined) => Math.min(Math.max(n ?? bounds.defaultPageSize, 1), bounds.maxPageSize);
  const withTotal = params.total === true;
  const request: PageRequest = pageStyle
    ? { limit: clamp(params.size), offset: (params.page ?? 0) * clamp(params.size), style: 'page', withTotal }
    : { limit: clamp(params.limit), offset: params.offset ?? 0, style: 'offset', withTotal };
  if (request.offset > MAX_OFFSET)
    throw invalidRequest(
      `A list reaches at most ${MAX_OFFSET} entries deep; narrow the filter.`,
      pageStyle ? 'page' : 'offset',
    );
  return request;
}

export interface Pagination {
  limit?: number;
  offset?: number;
  page?: number;
  size?: number;
  hasMore: boolean;
  total?: number;
}

/** The pagination block of a list answer, in the style it was asked in. */
export function paginationOf(request: PageRequest, hasMore: boolean, total: number | undefined): Pagination {
  const position =
    request.style === 'page'
      ? { page: Math.floor(request.offset / request.limit), size: request.limit }
      : { limit: request.limit, offset: request.offset };
  return { ...position, hasMore, ...(total === undefined ? {} : { total }) };
}
