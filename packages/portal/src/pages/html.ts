import { escapeHtml } from '@tessera/platform';
import type { Language, Translate } from '../i18n/negotiate.js';

/** Text and attribute values are escaped everywhere; nothing the browser or a service sent is ever trusted as markup. */
export { escapeHtml };

/** A fragment of trusted markup, built only by these page modules. */
export interface Html {
  readonly html: string;
}

const isHtml = (v: unknown): v is Html => typeof v === 'object' && v !== null && 'html' in v;

/**
 * Tagged template: interpolated strings are escaped, Html fragments (and arrays of them) are inserted as they are. Named
 * `markup`, not `html`, so that code formatters leave the page text (and its whitespace) exactly as written.
 */
export function markup(
  strings: TemplateStringsArray,
  ...values: Array<string | number | Html | Html[] | null | undefined | false>
): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    if (Array.isArray(v)) out += v.map((h) => h.html).join('');
    else if (isHtml(v)) out += v.html;
    else if (v !== null && v !== undefined && v !== false) out += escapeHtml(String(v));
    out += strings[i + 1]!;
  });
  return { html: out };
}

/**
 * Scripts only from the portal itself and never inline (the status script is /assets/signin.js), the QR as a data:
 * image, no framing (RFC 9700 §4.16). form-action is left open on purpose: the identity-verification form is answered
 * with a 303 to the institution's login, and browsers apply form-action to that redirect too.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'";

export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // The sign-in URL carries the relying party's state and nonce: they must not leak to the next site as a Referer.
  // same-origin rather than no-referrer: with no-referrer browsers send `Origin: null` on the portal's own form post,
  // and the Origin check of POST /signin/verify-identity needs the real origin.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  vary: 'Accept-Language, Cookie',
};

export interface PageInput {
  language: Language;
  t: Translate;
  title: string;
  body: Html;
  /** Loads /assets/signin.js, which follows the status (the only script of the portal). */
  withScript?: boolean;
}

export function layout({ language, t, title, body, withScript }: PageInput): string {
  return markup`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} – ${t('portalName')}</title>
<link rel="stylesheet" href="/assets/portal.css">
<link rel="icon" href="/favicon.ico">
${withScript ? markup`<script src="/assets/signin.js" defer></script>` : null}
</head>
<body>
<header class="site"><p class="brand">${t('portalName')}</p></header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
<footer class="site"><p>${t('footer')}</p></footer>
</body>
</html>
`.html;
}
