/** Database SQLSTATEs become API errors through one table; the message text never decides the code. */
import { assertEquals } from "../support/assert.ts";
import { apiErrorFromDatabase } from "../../supabase/functions/_shared/http/errors.ts";
import { errorStatus, sqlStateErrorCodes } from "../../supabase/functions/_shared/contract/errors.ts";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

Deno.test("each SQLSTATE maps to one API error, with the sentence after the prefix", () => {
  const cases: [string, string, string, string][] = [
    [
      "DW400",
      "DW400: limit must be between 1 and 200.",
      "invalid_request",
      "limit must be between 1 and 200.",
    ],
    ["DW401", "DW401: Sign in first.", "unauthorized", "Sign in first."],
    [
      "DWUPG",
      "DWUPG: API access needs the Pro plan or higher.",
      "upgrade_required",
      "API access needs the Pro plan or higher.",
    ],
    [
      "DW403",
      "DW403: Only owners and admins can send it.",
      "forbidden",
      "Only owners and admins can send it.",
    ],
    ["DW404", "DW404: No such webhook.", "not_found", "No such webhook."],
    ["DW429", "DW429: Too many test alerts.", "rate_limited", "Too many test alerts."],
  ];
  for (const [state, message, code, sentence] of cases) {
    const error = apiErrorFromDatabase(pgError(state, message));
    assertEquals([error?.code, error?.message], [code, sentence], state);
  }
  assertEquals(apiErrorFromDatabase(pgError("DWUPG", "DWUPG: x"))?.status, 403);
  assertEquals(Object.keys(sqlStateErrorCodes).sort(), cases.map(([state]) => state).sort());
});

Deno.test("a DW403 whose text says upgrade_required is still forbidden (no message sniffing)", () => {
  const error = apiErrorFromDatabase(pgError("DW403", "upgrade_required: API access needs the Pro plan."));
  assertEquals(error?.code, "forbidden");
});

Deno.test("other SQLSTATEs are not API errors", () => {
  assertEquals(apiErrorFromDatabase(pgError("23505", "duplicate key")), undefined);
  assertEquals(apiErrorFromDatabase(new Error("no code")), undefined);
  for (const code of Object.values(sqlStateErrorCodes)) assertEquals(code in errorStatus, true, code);
});
