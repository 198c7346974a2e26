/**
 * A typed name in the form the database stores and judges: lower case, and Unicode labels as A-labels
 * (`bücher.de` → `xn--bcher-kva.de`), as the REST API accepts them (docs/decisions.md, "Names and
 * addresses"). The conversion is the browser's own IDNA (the URL parser's host processing), so the app ships
 * no rule of its own: whether the name may be watched is still the database's answer. Text that is not a
 * bare host name (a URL, a path, spaces) is passed on unchanged for the database to refuse. Pure.
 */
const notABareHost = /[\s/?#:@\\[\]%]/;

export function domainInput(typed: string): string {
  const text = typed.trim();
  if (text === "" || notABareHost.test(text)) return text;
  try {
    return new URL(`http://${text}`).hostname;
  } catch {
    return text;
  }
}
