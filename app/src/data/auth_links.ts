/**
 * Where a sign-in may send the browser next, and what a mail's link that could not sign in says. Pure,
 * unit-tested (tests/unit/app_auth_links.test.ts).
 */

/**
 * `next` (a query parameter anyone can write into a link) as a path on this origin: exactly one leading `/`
 * (not `//`, which is another host), no backslash (browsers read `/\evil` as `//evil`), no control
 * characters or spaces (browsers drop tabs and newlines, so `/\t/evil` would become `//evil`). Anything else
 * is `/`. `location.origin + localPath(next)` is then always a URL of this app.
 */
export function localPath(next: string | null | undefined): string {
  if (!next || next[0] !== "/" || next[1] === "/") return "/";
  // deno-lint-ignore no-control-regex
  if (/[\\\u0000-\u0020\u007f]/.test(next)) return "/";
  try {
    const base = "https://app.invalid";
    const url = new URL(next, base);
    if (url.origin !== base) return "/";
  } catch {
    return "/";
  }
  return next;
}

/**
 * What a mail's link says when it came back without signing in (`?error_description=` from Auth, in the
 * query for the PKCE flow or in the fragment), or when it carries a PKCE `code` that this browser did not ask
 * for (the link was opened in another browser: the address is confirmed, but only the asking browser can
 * sign in with it). Null when the URL has neither.
 */
export function linkNotice(search: string, hash: string, signedIn: boolean): string | null {
  const query = new URLSearchParams(search);
  const fragment = new URLSearchParams(hash.replace(/^#/, ""));
  const error = query.get("error_description") ?? fragment.get("error_description");
  if (error) return `The link did not sign you in: ${error}. Ask for a new one below.`;
  if (query.has("code") && !signedIn) {
    return "This link was opened in a different browser from the one that asked for it, so it cannot sign " +
      "you in here. If it confirmed your address, sign in below; otherwise ask for a new link here.";
  }
  return null;
}

/** A path without the sign-in link's own parameters (`code`, `error…`), for `next`. */
export function withoutLinkParameters(path: string, search: string): string {
  const query = new URLSearchParams(search);
  for (const name of ["code", "error", "error_code", "error_description"]) query.delete(name);
  const rest = query.toString();
  return rest ? `${path}?${rest}` : path;
}
