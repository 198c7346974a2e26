/**
 * rdap-poller's `POST /deliveries`: one delivery run with its own time budget (the pg_cron job
 * `alert-delivery` every minute, and the wake-up after new alerts are written), answered with its summary.
 */
import type { Context } from "hono";
import { defaultDispatcherDeps } from "./default_dispatcher.ts";
import { dispatchDueDeliveries } from "./dispatcher.ts";
import { deliverySettings } from "./delivery_settings.ts";

export async function deliveriesHandler(c: Context): Promise<Response> {
  const settings = deliverySettings();
  const startedAt = Date.now();
  const summary = await dispatchDueDeliveries(defaultDispatcherDeps(settings), {
    deadline: startedAt + settings.timeBudgetMs,
    concurrency: settings.concurrency,
    leaseSeconds: settings.leaseSeconds,
    maxDeliveries: settings.maxPerRun,
    idleLingerMs: settings.idleLingerMs,
  });
  const durationMs = Date.now() - startedAt;
  console.log(
    `[alert-delivery] ${summary.delivered} delivered, ${summary.retried} to retry, ${summary.failed} failed, ` +
      `${summary.deferred} deferred, ${summary.probes} breaker probes; ${durationMs} ms (${summary.stopped_because})`,
  );
  return c.json({ ...summary, duration_ms: durationMs });
}
