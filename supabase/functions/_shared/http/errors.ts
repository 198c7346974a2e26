/** The API's errors as thrown: an error code of the contract (contract/errors.ts) and a sentence. */
import { type ErrorCode, errorStatus, sqlStateErrorCodes } from "../contract/errors.ts";

export { type ErrorCode, errorStatus };

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

/**
 * Turns an error raised by a database function with one of the contract's SQLSTATEs (DW400, DWUPG, …)
 * into an ApiError. The SQLSTATE alone decides the code; the message is `<code>: <sentence>` and the
 * sentence is what the API returns.
 */
export function apiErrorFromDatabase(error: unknown): ApiError | undefined {
  const state = (error as { code?: string })?.code;
  const code = state ? sqlStateErrorCodes[state] : undefined;
  if (!code) return undefined;
  const raw = String((error as Error).message ?? "");
  const [, ...sentence] = raw.split(": ");
  return new ApiError(code, sentence.length > 0 ? sentence.join(": ") : raw);
}
