/** POLLER_TIME_BUDGET_MS never reaches hosted edge-runtime's wall-clock limit (150 s on the Free plan). */
import { pollerSettings, pollerTimeBudgetCapMs } from "../../supabase/functions/_shared/poller/settings.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("the poller's time budget: 25 s by default, cut to the cap below the runtime's 150 s", () => {
  const saved = Deno.env.get("POLLER_TIME_BUDGET_MS");
  try {
    Deno.env.delete("POLLER_TIME_BUDGET_MS");
    assertEquals(pollerSettings().timeBudgetMs, 25_000);
    Deno.env.set("POLLER_TIME_BUDGET_MS", "60000");
    assertEquals(pollerSettings().timeBudgetMs, 60_000);
    Deno.env.set("POLLER_TIME_BUDGET_MS", "400000");
    assertEquals(pollerSettings().timeBudgetMs, pollerTimeBudgetCapMs);
    assert(pollerTimeBudgetCapMs < 150_000);
  } finally {
    if (saved === undefined) Deno.env.delete("POLLER_TIME_BUDGET_MS");
    else Deno.env.set("POLLER_TIME_BUDGET_MS", saved);
  }
});
