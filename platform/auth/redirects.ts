/**
 * Supabase Auth's (GoTrue's) redirect rule, for the local Auth stand-in and the test fake: which
 * `redirect_to` an email link will really lead to. From supabase/auth `internal/utilities/request.go`
 * (`GetReferrer`, `IsRedirectURLValid`):
 * - a redirect is honoured when its scheme and host match the Site URL's (and the port too, unless the
 *   host is a loopback name), or when the whole URL (fragment removed) matches a glob of the redirect allow
 *   list ("Redirect URLs"; `additional_redirect_urls` in config.toml) — `*` stops at `.` and `/`, `**`
 *   does not, `?` is one character;
 * - decimal-number hosts never, IP literals only when loopback;
 * - otherwise Auth silently uses the Site URL instead.
 */

const loopbackNames = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "::"]);

function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "*" && pattern[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") source += "[^./]*";
    else if (char === "?") source += "[^./]";
    else source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** The host as written (WHATWG's URL would turn `2130706433` into `127.0.0.1`; Go's url.Parse does not). */
function rawHostname(url: string): string {
  const match = url.match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i);
  return match ? match[1] : "";
}

function isIpLiteral(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith("[");
}

export function isRedirectAllowed(siteUrl: string, allowList: string[], redirectTo: string): boolean {
  if (!redirectTo) return false;
  let base: URL;
  let target: URL;
  try {
    base = new URL(siteUrl);
    target = new URL(redirectTo);
  } catch {
    return false;
  }
  const port = (url: URL) =>
    url.port || (url.protocol === "https:" ? "443" : url.protocol === "http:" ? "80" : "");
  if (
    !/^\d+$/.test(rawHostname(redirectTo)) && base.hostname === target.hostname &&
    base.protocol === target.protocol &&
    (port(base) === port(target) || loopbackNames.has(target.hostname))
  ) {
    return true;
  }
  const host = rawHostname(redirectTo);
  if (/^\d+$/.test(host)) return false;
  if (isIpLiteral(host)) return loopbackNames.has(host) || host.startsWith("127.");
  const withoutFragment = redirectTo.split("#")[0];
  return allowList.some((pattern) => globToRegExp(pattern).test(withoutFragment));
}

/** The redirect an Auth email will really carry: `redirect_to` when allowed, else the Site URL. */
export function redirectAuthWouldUse(
  siteUrl: string,
  allowList: string[],
  redirectTo: string | null,
): string {
  return redirectTo && isRedirectAllowed(siteUrl, allowList, redirectTo) ? redirectTo : siteUrl;
}
