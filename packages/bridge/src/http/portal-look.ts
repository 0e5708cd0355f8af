import { escapeHtml } from '@tessera/platform';
/**
 * The bridge's own pages (the QR page, its error pages, the IDV callback's refusal) look like the portal's (issue 14
 * §7): they link the portal's stylesheet and icon from the portal's public URL (`idv.portalUrl`), and their CSP
 * admits that origin for styles and images, nothing else of it.
 */
export interface PortalLook {
  /** The portal's origin, for the pages' CSP. */
  origin: string;
  /** The `<link>` elements of the page head. */
  head: string;
}

export function portalLook(portalUrl: string): PortalLook {
  const base = portalUrl.replace(/\/+$/, '');
  return {
    origin: new URL(base).origin,
    head: `<link rel="stylesheet" href="${escapeHtml(base)}/assets/portal.css">\n<link rel="icon" href="${escapeHtml(base)}/favicon.ico">`,
  };
}
