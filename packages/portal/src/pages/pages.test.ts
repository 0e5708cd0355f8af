import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/negotiate.js';
import { escapeHtml, markup } from './html.js';
import { messagePage, verifyIdentityPage } from './other-pages.js';
import { signinPage } from './signin-page.js';

const t = translator('en');

describe('page markup', () => {
  it('escapes every interpolated value, and inserts fragments as they are', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const inner = markup`<b>${'<i>'}</b>`;
    expect(markup`<p>${inner}${[inner, inner]}${null}${false}${0}</p>`.html).toBe(
      '<p><b>&lt;i&gt;</b><b>&lt;i&gt;</b><b>&lt;i&gt;</b>0</p>',
    );
  });

  it('the sign-in page: language, landmarks, one heading, the QR with alt text, a live status, no inline script', () => {
    const page = signinPage({
      language: 'de',
      t: translator('de'),
      clientName: 'Bibliothek "><script>alert(1)</script>',
      qrCodeDataUri: 'data:image/png;base64,AAAA',
      requestUri: 'openid4vp://?client_id=x&request_uri=https%3A%2F%2Fv.example%2Fr',
      poll: { url: '/api/signin/status?tx=1&lang=de', intervalMs: 2000, maxPolls: 150, timeoutMessage: 'Zeit um' },
      restartHref: '/signin?client_id=rp',
    });
    expect(page).toMatch(/^<!doctype html>\n<html lang="de">/);
    expect(page).toContain('<main id="main">');
    expect(page.match(/<h1>/g)).toHaveLength(1);
    expect(page).toContain('<img id="qr" class="qr-image" src="data:image/png;base64,AAAA" alt="QR-Code');
    expect(page).toContain('role="status" aria-live="polite"');
    expect(page).toContain('href="openid4vp://?client_id=x&amp;request_uri=https%3A%2F%2Fv.example%2Fr"');
    expect(page).toContain('data-interval-ms="2000" data-max-polls="150"');
    expect(page).not.toContain('<script>alert');
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain('<script src="/assets/signin.js" defer></script>');
    // The relying party by its display name; the link also as text to copy (issue 14 §7).
    expect(page).toContain('Sie melden sich bei Bibliothek &quot;&gt;&lt;script&gt;');
    expect(page).toContain(
      '<input id="wallet-link" class="link-text" type="text" readonly spellcheck="false" value="openid4vp://?client_id=x&amp;request_uri=https%3A%2F%2Fv.example%2Fr">',
    );
    expect(page).toContain('<link rel="icon" href="/favicon.ico">');
  });

  it('the identity-verification page explains the step and posts to the portal itself', () => {
    const page = verifyIdentityPage({ language: 'en', t, restartHref: '/signin?a=1' });
    expect(page).toContain('<form method="post" action="/signin/verify-identity">');
    expect(page).toContain(
      '<button type="submit" class="button" id="verify-identity">Continue to your institution</button>',
    );
    expect(page).toContain('<ol class="steps">');
    expect(page).not.toContain('<script');
  });

  it('a message page offers "start again" when the request is known, else the way back to the application', () => {
    expect(messagePage({ language: 'en', t, title: 'T', paragraphs: ['p'], restartHref: '/signin?x=1' })).toContain(
      'id="start-again" href="/signin?x=1"',
    );
    expect(messagePage({ language: 'en', t, title: 'T', paragraphs: ['p'], restartHref: null })).toContain(
      t('returnToApp'),
    );
  });
});
