import type { Language, Translate } from '../i18n/negotiate.js';
import { layout, markup, type Html } from './html.js';

export interface PollSettings {
  /** Where the script asks for the state. */
  url: string;
  intervalMs: number;
  maxPolls: number;
  /** Message shown when the polls ran out (000 §8: the page stops waiting). */
  timeoutMessage: string;
}

/**
 * The status line and the "start again" link, followed by /assets/signin.js. The line is a live region
 * (role=status, aria-live=polite): screen readers announce each change without moving the focus.
 */
export function statusBlock(
  t: Translate,
  poll: PollSettings,
  initial: { state: string; message: string },
  restartHref: string,
): Html {
  return markup`<div class="status" id="status" data-poll-url="${poll.url}" data-interval-ms="${poll.intervalMs}" data-max-polls="${poll.maxPolls}" data-msg-connection="${t('statusConnection')}" data-msg-timeout="${poll.timeoutMessage}">
<p id="status-text" class="status-text" role="status" aria-live="polite" data-state="${initial.state}">${initial.message}</p>
<p id="restart" hidden><a class="button secondary" href="${restartHref}">${t('startAgain')}</a></p>
<noscript><p class="notice">${t('noscript')}</p></noscript>
</div>`;
}

export interface SigninPageInput {
  language: Language;
  t: Translate;
  /** The relying party's display name (its client_name, else its client id). */
  clientName: string;
  qrCodeDataUri: string;
  requestUri: string;
  poll: PollSettings;
  restartHref: string;
}

/** flows.md step 3: the QR (`qrCodeDataUri`), the deep link, and the status that follows the session. */
export function signinPage(input: SigninPageInput): string {
  const { t } = input;
  const body = markup`<p>${t('signinClient', { client: input.clientName })}</p>
<div class="signin">
<section class="qr" id="qr-block" aria-label="${t('signinScan')}">
<p>${t('signinScan')}</p>
<img id="qr" class="qr-image" src="${input.qrCodeDataUri}" alt="${t('signinQrAlt')}">
<p>${t('signinSameDevice')}</p>
<p><a class="button" id="open-in-wallet" href="${input.requestUri}">${t('signinOpenInWallet')}</a></p>
<p class="wallet-link"><label for="wallet-link">${t('signinLinkLabel')}</label>
<input id="wallet-link" class="link-text" type="text" readonly spellcheck="false" value="${input.requestUri}">
<button type="button" class="button secondary" id="copy-link" data-copied="${t('signinLinkCopied')}" hidden>${t('signinCopyLink')}</button></p>
</section>
<section class="progress" aria-labelledby="status-heading">
<h2 id="status-heading">${t('signinStatusHeading')}</h2>
${statusBlock(t, input.poll, { state: 'waiting', message: t('statusWaiting') }, input.restartHref)}
</section>
</div>`;
  return layout({ language: input.language, t, title: t('signinTitle'), body, withScript: true });
}
