/**
 * "Check now": a live check of one name from the app (check-now), within the plan's daily allowance. Used
 * on a name's row and on its page. The answer is told in one line; a busy registry says when to try again.
 */
import { useState } from "preact/hooks";
import * as api from "../data/api.ts";
import type { CheckNowResult } from "../data/types.ts";
import { ErrorNote, statusLabels, useAction } from "./components.tsx";

/** What a live check answered, in words. Pure. */
export function checkOutcome(result: CheckNowResult): string {
  const status = statusLabels[result.status] ?? result.status;
  const left = typeof result.checks_left_today === "number"
    ? ` ${result.checks_left_today} check${result.checks_left_today === 1 ? "" : "s"} left today.`
    : "";
  if (result.status === "unknown" && result.retry_after_seconds) {
    return `Unknown: the registry is busy; try again in ${result.retry_after_seconds} s.${left}`;
  }
  return `${status} (checked just now).${left}`;
}

export function CheckNowButton(
  { name, onChecked }: { name: string; onChecked?: (result: CheckNowResult) => void },
) {
  const { busy, error, act } = useAction();
  const [result, setResult] = useState<CheckNowResult | null>(null);
  return (
    <span class="check-now">
      <button
        type="button"
        class="secondary"
        disabled={busy}
        aria-label={`Check ${name} now`}
        onClick={() =>
          act(async () => {
            setResult(null);
            const answer = await api.checkNow(name);
            setResult(answer);
            onChecked?.(answer);
          })}
      >
        {busy ? "Checking…" : "Check now"}
      </button>
      {result ? <span role="status" class="check-result">{checkOutcome(result)}</span> : null}
      <ErrorNote error={error} />
    </span>
  );
}
