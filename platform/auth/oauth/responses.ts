/** Responses in GoTrue's shapes, and the small helpers of the local OAuth server. */
import { createHash, timingSafeEqual } from "node:crypto";
import { AuthError, errorResponse } from "../errors.ts";

/** GoTrue's HTTPError, in the shape for the caller's API version (../auth/errors.ts). */
export function httpError(request: Request, status: number, code: string, msg: string): Response {
  return errorResponse(request, new AuthError(status, code, msg));
}

/** GoTrue's OAuthError (RFC 6749 §5.2): always 400. */
export function oauthError(error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status: 400 });
}

export function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

export function errorRedirect(uri: string, error: string, description: string, state: string): Response {
  return redirect(withQuery(uri, { error, error_description: description, state }));
}

export function randomToken(bytes = 24): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(bytes))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function sha256Base64Url(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

export function sameText(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
