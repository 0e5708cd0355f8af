import { describe, expect, it } from 'vitest';
import type { MatchCandidate } from '../clients/bridge-client.js';
import { choiceOf } from '../http/confirm-account-routes.js';
import { translator } from '../i18n/negotiate.js';
import { confirmAccountPage } from './confirm-account-page.js';

/** The candidate page (issue 14 §11) and the choice its form posts. */
describe('the candidate page', () => {
  const candidates: MatchCandidate[] = [
    { matchId: 'id-one', claims: { service_id: '***01', email: 'a***@uni.example' }, institution: 'Uni "<b>"' },
    { matchId: 'id-two"><script>', claims: { custom_claim: '***xy' }, institution: null },
  ];

  it('lists each candidate as a labelled radio button with its masked values, escaped, and both answers', () => {
    const page = confirmAccountPage({
      language: 'en',
      t: translator('en'),
      candidates,
      restartHref: '/signin?client_id=rp',
    });
    expect(page).toContain('<h1>Is this your account?</h1>');
    expect(page).toContain('<legend>Accounts that match your credential</legend>');
    expect(page.match(/<input type="radio" name="matchId"/g)).toHaveLength(2);
    expect(page).toContain('<label for="account-1"><strong>Account at Uni &quot;&lt;b&gt;&quot;</strong>');
    expect(page).toContain('Service ID:</span> <span class="masked">***01</span>');
    expect(page).toContain('E-mail:</span> <span class="masked">a***@uni.example</span>');
    expect(page).toContain('<strong>Account 2</strong>');
    expect(page).toContain('custom_claim:</span>');
    expect(page).toContain('value="id-two&quot;&gt;&lt;script&gt;"');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain(' checked');
    expect(page).toContain('name="decision" value="confirm"');
    expect(page).toContain('name="decision" value="decline" id="decline-account" formnovalidate');
    expect(page).not.toContain('role="alert"');
  });

  it('checks the only candidate, says why in German, and shows the refusal of an unknown choice', () => {
    const page = confirmAccountPage({
      language: 'de',
      t: translator('de'),
      candidates: [candidates[0]!],
      restartHref: '/signin',
      refused: true,
    });
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('required checked>');
    expect(page).toContain('<p class="notice" role="alert">Bitte wählen Sie eines der aufgeführten Konten.</p>');
    expect(page).toContain('Ja, das ist mein Konto');
  });
});

describe('the choice the form posts', () => {
  const form = (entries: [string, string][]) => new URLSearchParams(entries);

  it('reads a confirmation with one match id, or a decline', () => {
    expect(
      choiceOf(
        form([
          ['decision', 'confirm'],
          ['matchId', 'abc_-123'],
        ]),
      ),
    ).toEqual({
      confirmed: true,
      selectedMatchId: 'abc_-123',
    });
    expect(
      choiceOf(
        form([
          ['decision', 'decline'],
          ['matchId', 'ignored'],
        ]),
      ),
    ).toEqual({ confirmed: false });
  });

  it('refuses anything else: no or repeated decision, no, repeated or malformed id, an unknown decision', () => {
    for (const entries of [
      [],
      [['matchId', 'abc']],
      [['decision', 'confirm']],
      [
        ['decision', 'confirm'],
        ['decision', 'decline'],
        ['matchId', 'abc'],
      ],
      [
        ['decision', 'confirm'],
        ['matchId', 'a'],
        ['matchId', 'b'],
      ],
      [
        ['decision', 'confirm'],
        ['matchId', 'a b'],
      ],
      [
        ['decision', 'confirm'],
        ['matchId', 'x'.repeat(129)],
      ],
      [
        ['decision', 'confirm'],
        ['matchId', ''],
      ],
      [
        ['decision', 'yes'],
        ['matchId', 'abc'],
      ],
    ] as [string, string][][])
      expect(choiceOf(form(entries)), JSON.stringify(entries)).toBeNull();
    expect(choiceOf({ decision: 'confirm', matchId: 'abc' })).toBeNull();
  });
});
