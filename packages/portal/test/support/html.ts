/** Reads what a page shows, for HTTP tests: an attribute of the element with an id, a text by id, entities undone. */
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export function attributeOf(html: string, id: string, attribute: string): string | null {
  const tag = new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`, 'i').exec(html)?.[0];
  const value = tag ? new RegExp(`\\b${attribute}="([^"]*)"`).exec(tag)?.[1] : undefined;
  return value === undefined ? null : unescape(value);
}

export function textOf(html: string, id: string): string | null {
  const m = new RegExp(`<([a-z0-9]+)[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`, 'i').exec(html);
  return m ? unescape(m[2]!.replace(/<[^>]+>/g, '').trim()) : null;
}
