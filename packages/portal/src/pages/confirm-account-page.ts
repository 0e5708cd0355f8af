import type { MatchCandidate } from '../clients/bridge-client.js';
import type { MessageKey } from '../i18n/en.js';
import type { Language, Translate } from '../i18n/negotiate.js';
import { layout, markup } from './html.js';

/** Labels of the claims the bridge may show (masked); any other claim name is shown as it is. */
const CLAIM_LABELS: Record<string, MessageKey> = {
  service_id: 'confirmClaimServiceId',
  eduperson_principal_name: 'confirmClaimEppn',
  email: 'confirmClaimEmail',
};

/**
 * The confirmation of a matching account (issue 14 §11): the candidates as the bridge masked them, as radio buttons
 * (the only one checked already), "Yes, this is my account", and "None of these is mine", which leads to the
 * identity verification instead. No script: a plain form that posts to the portal.
 */
export function confirmAccountPage(input: {
  language: Language;
  t: Translate;
  candidates: MatchCandidate[];
  restartHref: string;
  refused?: boolean;
}): string {
  const { t, candidates } = input;
  const single = candidates.length === 1;
  const items = candidates.map((c, i) => {
    const id = `account-${i + 1}`;
    const title = c.institution
      ? t('confirmInstitution', { institution: c.institution })
      : t('confirmAccount', { number: String(i + 1) });
    const details = Object.entries(c.claims).map(
      ([name, masked]) =>
        markup`<li><span class="claim-name">${CLAIM_LABELS[name] ? t(CLAIM_LABELS[name]) : name}:</span> <span class="masked">${masked}</span></li>`,
    );
    return markup`<li class="candidate">
<input type="radio" name="matchId" id="${id}" value="${c.matchId}" required${single ? markup` checked` : null}>
<label for="${id}"><strong>${title}</strong>
<ul class="claims">${details}</ul></label>
</li>`;
  });
  const body = markup`${input.refused ? markup`<p class="notice" role="alert">${t('confirmRefused')}</p>` : null}
<p>${single ? t('confirmWhy') : t('confirmWhySeveral')}</p>
<form method="post" action="/signin/confirm-account">
<fieldset class="candidates">
<legend>${t('confirmLegend')}</legend>
<ul class="candidate-list">${items}</ul>
</fieldset>
<p class="actions"><button type="submit" class="button" name="decision" value="confirm" id="confirm-account">${t('confirmButton')}</button></p>
<p class="actions"><button type="submit" class="button secondary" name="decision" value="decline" id="decline-account" formnovalidate>${t('confirmNone')}</button></p>
</form>
<p><a href="${input.restartHref}">${t('idvCancel')}</a></p>`;
  return layout({ language: input.language, t, title: t('confirmTitle'), body });
}
