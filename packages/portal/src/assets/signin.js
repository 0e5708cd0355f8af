/* global document, window, fetch, setTimeout, navigator */
// Follows a sign-in from the portal's sign-in and callback pages (000 §8: every 2 seconds, for a bounded number of
// polls). It is the portal's only script, served from /assets so that the CSP needs no inline script. Every text it
// shows comes from the server (the page's data attributes or the status answer), in the page's language.
(() => {
  'use strict';
  // The openid4vp:// link as text to copy (a wallet on another device, or a command-line wallet).
  const link = document.getElementById('wallet-link');
  const copy = document.getElementById('copy-link');
  if (link && copy) {
    copy.hidden = false;
    link.addEventListener('focus', () => link.select());
    copy.addEventListener('click', async () => {
      link.select();
      try {
        await navigator.clipboard.writeText(link.value);
        copy.textContent = copy.getAttribute('data-copied') || copy.textContent;
      } catch {
        // Without clipboard access the text stays selected for the person to copy.
      }
    });
  }
  const box = document.getElementById('status');
  const text = document.getElementById('status-text');
  const restart = document.getElementById('restart');
  if (!box || !text || !restart) return;
  const qr = document.getElementById('qr-block');
  const url = box.getAttribute('data-poll-url');
  const interval = Number(box.getAttribute('data-interval-ms')) || 2000;
  const maxPolls = Number(box.getAttribute('data-max-polls')) || 150;
  let polls = 0;

  // Only a changed text is written, so that the live region announces changes and not every poll.
  const show = (state, message) => {
    if (text.textContent !== message) text.textContent = message;
    text.setAttribute('data-state', state);
  };
  const stop = (state, message) => {
    show(state, message);
    if (qr) qr.hidden = true;
    restart.hidden = false;
  };
  const schedule = () => {
    if (polls >= maxPolls) stop('timeout', box.getAttribute('data-msg-timeout') || '');
    else setTimeout(poll, interval);
  };
  const poll = async () => {
    polls += 1;
    let answer;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (!res.ok) throw new Error('status ' + res.status);
      answer = await res.json();
    } catch {
      // A lost connection or a busy server: say so, and keep trying until the polls run out.
      show(text.getAttribute('data-state') || 'waiting', box.getAttribute('data-msg-connection') || '');
      schedule();
      return;
    }
    show(answer.state, answer.message);
    // The wallet said it cannot answer: offer "start again" at once, and keep following (another wallet may answer).
    if (answer.state === 'declined') restart.hidden = false;
    if (typeof answer.next === 'string') window.location.assign(answer.next);
    else if (answer.final) stop(answer.state, answer.message);
    else schedule();
  };
  schedule();
})();
