/**
 * The API's error vocabulary (docs/decisions.md): every error body is `{error, message, ...extra}`. One
 * table gives each code its HTTP status; one table maps the database functions' SQLSTATEs to codes
 * (docs/database.md, "Error SQLSTATEs").
 */
import { z } from "zod";

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

export const errorCodes = Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]];

/**
 * SQLSTATEs raised by the database functions, one per meaning. The message a function raises is the
 * sentence the API returns; the code alone decides the error.
 */
export const sqlStateErrorCodes: Readonly<Record<string, ErrorCode>> = {
  DW400: "invalid_request",
  DW401: "unauthorized",
  DW403: "forbidden",
  DWUPG: "upgrade_required",
  DW404: "not_found",
  DW429: "rate_limited",
};

export const errorBody = z.object({
  error: z.enum(errorCodes),
  message: z.string(),
  details: z.array(z.record(z.string(), z.unknown())).optional(),
  reset_at: z.string().optional().describe("With rate_limited: when the limit resets (ISO 8601 UTC)."),
  request_id: z.string().optional(),
});

export type ErrorBody = z.infer<typeof errorBody>;
