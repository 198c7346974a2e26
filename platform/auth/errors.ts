/**
 * GoTrue's error answers (supabase/auth `internal/api/errors.go`, `apierrors`): an HTTPError is
 * `{"code": "<error_code>", "message": "…"}` for callers that send `X-Supabase-Api-Version: 2024-01-01` (as
 * supabase-js does; the header is echoed), else the older `{"code": <status>, "error_code": "…", "msg": "…"}`;
 * both carry the `x-sb-error-code` header. A weak password adds `weak_password: {reasons}`.
 */

export const apiVersionHeader = "x-supabase-api-version";
export const apiVersion = "2024-01-01";

/** An error a handler throws; the router turns it into GoTrue's answer. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new AuthError(400, code, message);
export const forbidden = (code: string, message: string) => new AuthError(403, code, message);
export const unprocessable = (code: string, message: string) => new AuthError(422, code, message);
export const tooManyRequests = (code: string, message: string) => new AuthError(429, code, message);

export function weakPassword(message: string, reasons: string[]): AuthError {
  return new AuthError(422, "weak_password", message, { weak_password: { reasons } });
}

function versioned(request: Request): boolean {
  return (request.headers.get(apiVersionHeader) ?? "") >= apiVersion;
}

/** GoTrue's answer for one error, shaped for the caller's API version. */
export function errorResponse(request: Request, error: AuthError): Response {
  const headers: Record<string, string> = { "x-sb-error-code": error.code };
  if (versioned(request)) {
    headers[apiVersionHeader] = apiVersion;
    return Response.json({ code: error.code, message: error.message, ...error.extra }, {
      status: error.status,
      headers,
    });
  }
  return Response.json(
    { code: error.status, error_code: error.code, msg: error.message, ...error.extra },
    { status: error.status, headers },
  );
}

/** A JSON answer, with the API version echoed as GoTrue does. */
export function jsonResponse(
  request: Request,
  body: unknown,
  status = 200,
  extra: HeadersInit = {},
): Response {
  const headers = new Headers(extra);
  if (versioned(request)) headers.set(apiVersionHeader, apiVersion);
  return Response.json(body, { status, headers });
}

/** The JSON body of a request; GoTrue's `bad_json` when it is not a JSON object. */
export async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    const text = await request.text();
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw badRequest("bad_json", `Could not parse request body as JSON: ${(error as Error).message}`);
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest("bad_json", "Could not parse request body as JSON: expected an object");
  }
  return body as Record<string, unknown>;
}

/** A string field of a body ("" when absent); a non-string value is GoTrue's `bad_json`. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") {
    throw badRequest("bad_json", `Could not parse request body as JSON: ${name} must be a string`);
  }
  return value;
}

/** An object field of a body (undefined when absent). */
export function objectField(
  body: Record<string, unknown>,
  name: string,
): Record<string, unknown> | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw badRequest("bad_json", `Could not parse request body as JSON: ${name} must be an object`);
  }
  return value as Record<string, unknown>;
}
