/** Parses input with a zod schema; failures become a 400 `invalid_request` listing what was wrong. */
import type { z } from "zod";
import { ApiError } from "./errors.ts";

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join(".") : what,
    message: issue.message,
  }));
  throw new ApiError(
    "invalid_request",
    `The ${what} is not valid: ${details[0].field} ${details[0].message}.`,
    {
      details,
    },
  );
}
