/**
 * ISO 8601 durations (000 §2.8 token settings: access-token-time-to-live as e.g. PT1H). Only the day-time part
 * and weeks are accepted: years and months have no fixed length in seconds.
 */
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function parseIsoDurationSeconds(text: string): number {
  const m = DURATION.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) throw new Error(`not an ISO 8601 duration: ${text}`);
  const [, w, d, h, min, s] = m;
  return (Number(w ?? 0) * 7 + Number(d ?? 0)) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0);
}
