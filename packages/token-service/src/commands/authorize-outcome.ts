/** What the authorization endpoint answers: a redirect (303), or an error page when no redirect may be made. */
export type AuthorizeOutcome =
  { kind: 'redirect'; location: string } | { kind: 'error_page'; status: number; error: string; description: string };
