import type { Language, Translate } from '../i18n/negotiate.js';
import { layout, markup, type Html } from './html.js';
import { statusBlock, type PollSettings } from './signin-page.js';

interface Base {
  language: Language;
  t: Translate;
}

/** flows.md step 5': why the institution's login comes now, what happens, and the button that starts it. */
export function verifyIdentityPage(input: Base & { restartHref: string }): string {
  const { t } = input;
  const body = markup`<p>${t('idvWhy')}</p>
<h2>${t('idvStepsHeading')}</h2>
<ol class="steps">
<li>${t('idvStep1')}</li>
<li>${t('idvStep2')}</li>
<li>${t('idvStep3')}</li>
</ol>
<form method="post" action="/signin/verify-identity">
<p><button type="submit" class="button" id="verify-identity">${t('idvButton')}</button></p>
</form>
<p><a href="${input.restartHref}">${t('idvCancel')}</a></p>`;
  return layout({ language: input.language, t, title: t('idvTitle'), body });
}

/** flows.md step 7': back from the institution, the page follows the IDV status until the sign-in can go on. */
export function finishingPage(input: Base & { poll: PollSettings; restartHref: string }): string {
  const { t } = input;
  const body = statusBlock(t, input.poll, { state: 'idv_pending', message: t('statusIdvPending') }, input.restartHref);
  return layout({ language: input.language, t, title: t('callbackTitle'), body, withScript: true });
}

export interface MessagePageInput extends Base {
  title: string;
  paragraphs: string[];
  /** Shown in small print, for support (an error or reason code; never a value). */
  reference?: string | null;
  /** "Start again" with the relying party's original parameters, when they are known. */
  restartHref?: string | null;
}

/** Errors and dead ends: what happened in plain words, and the way back. */
export function messagePage(input: MessagePageInput): string {
  const { t } = input;
  const body: Html = markup`${input.paragraphs.map((p) => markup`<p>${p}</p>`)}
${input.reference ? markup`<p class="reference">${t('reasonCode', { code: input.reference })}</p>` : null}
${input.restartHref ? markup`<p><a class="button" id="start-again" href="${input.restartHref}">${t('startAgain')}</a></p>` : markup`<p>${t('returnToApp')}</p>`}`;
  return layout({ language: input.language, t, title: input.title, body });
}
