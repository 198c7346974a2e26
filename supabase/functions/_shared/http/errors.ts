/** The API's error vocabulary (docs/decisions.md): every error body is `{error, message, ...extra}`. */

export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  upgrade_required: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  get status(): number {
    return errorStatus[this.code];
  }

  toJSON(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

/** SQLSTATEs raised by the database functions, mapped to API error codes. */
const sqlStateCodes: Record<string, ErrorCode> = {
  DW400: "invalid_request",
  DW401: "unauthorized",
  DW403: "forbidden",
  DW404: "not_found",
  DW429: "rate_limited",
};

/** Turns an error raised by a database function with a DWxxx SQLSTATE into an ApiError. */
export function apiErrorFromDatabase(error: unknown): ApiError | undefined {
  const state = (error as { code?: string })?.code;
  const code = state ? sqlStateCodes[state] : undefined;
  if (!code) return undefined;
  const raw = String((error as Error).message ?? "");
  const [prefix, ...sentence] = raw.split(": ");
  if (prefix === "upgrade_required") return new ApiError("upgrade_required", sentence.join(": "));
  return new ApiError(code, sentence.length > 0 ? sentence.join(": ") : raw);
}
