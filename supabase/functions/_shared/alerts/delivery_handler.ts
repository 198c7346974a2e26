/**
 * rdap-poller's `POST /deliveries`: one delivery run with its own time budget (the pg_cron job
 * `alert-delivery` every minute, and the wake-up after new alerts are written), answered with its summary.
 */
import type { Context } from "hono";
import { defaultDispatcherDeps } from "./default_dispatcher.ts";
import type { DispatcherDeps } from "./dispatcher.ts";
import { dispatchDueDeliveries } from "./dispatcher.ts";
import { deliverySettings } from "./delivery_settings.ts";
import { errorForLog } from "../log_text.ts";
import { sendDueEmails } from "./email_dispatcher.ts";
import { defaultEmailDeps, emailSettings } from "./default_email.ts";

export async function deliveriesHandler(c: Context): Promise<Response> {
  const settings = deliverySettings();
  const startedAt = Date.now();
  const deps: DispatcherDeps = defaultDispatcherDeps(settings);
  const email = emailSettings();
  // Mails (each an address's digest) go beside the other channels, on the same time budget.
  const [summary, emails] = await Promise.all([
    dispatchDueDeliveries(deps, {
      deadline: startedAt + settings.timeBudgetMs,
      concurrency: settings.concurrency,
      leaseSeconds: settings.leaseSeconds,
      maxDeliveries: settings.maxPerRun,
      idleLingerMs: settings.idleLingerMs,
    }),
    sendDueEmails(defaultEmailDeps(), {
      deadline: startedAt + settings.timeBudgetMs,
      leaseSeconds: settings.leaseSeconds,
      windowSeconds: email.windowSeconds,
      maxEventsPerMail: email.maxEventsPerMail,
      maxMails: email.maxPerRun,
      concurrency: email.concurrency,
    }),
  ]);
  const durationMs = Date.now() - startedAt;
  // Out of time or over the per-run cap with work left: a fresh invocation (fresh CPU budget) goes on.
  const handedOver =
    (summary.stopped_because !== "no_due_work" || emails.stopped_because !== "no_due_work") &&
    await deps.queue.handOver().then(() => true, (error) => {
      console.error(`[alert-delivery] could not start the next run: ${errorForLog(error)}`);
      return false;
    });
  console.log(
    `[alert-delivery] ${summary.delivered} delivered, ${summary.retried} to retry, ${summary.failed} failed, ` +
      `${summary.deferred} deferred, ${summary.probes} breaker probes; ${emails.mails_sent} mails sent ` +
      `(${emails.deliveries_sent} alerts), ${emails.mails_retried} to retry, ${emails.mails_failed} failed, ` +
      `${emails.confirmations_sent} confirmations; ${durationMs} ms (${summary.stopped_because}${
        handedOver ? ", handed over" : ""
      })`,
  );
  return c.json({ ...summary, email: emails, handed_over: handedOver, duration_ms: durationMs });
}
