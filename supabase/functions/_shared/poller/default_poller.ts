/** The poller's dependencies from the environment: the shared RDAP engine, DNS, the database, the dispatcher. */
import { checkDomain, defaultCheckDeps } from "../availability/check_domain.ts";
import { lookupNameservers } from "../dns/nameservers.ts";
import { sharedHostLimiter } from "../rdap/host_limiter.ts";
import { config } from "../config.ts";
import { dispatchDueDeliveries } from "../alerts/dispatcher.ts";
import { defaultDispatcherDeps } from "../alerts/default_dispatcher.ts";
import { databaseDomainQueue } from "./domain_queue.ts";
import { rateLimitedLookup } from "./dns_rate_limit.ts";
import type { PollerDeps } from "./run_poller.ts";
import type { PollerSettings } from "./settings.ts";

export function defaultPollerDeps(settings: PollerSettings): PollerDeps {
  const checkDeps = defaultCheckDeps();
  const nameserver = config.dnsNameserver();
  const lookupDns = rateLimitedLookup((name) => lookupNameservers(name, { nameserver }), {
    resolver: nameserver ?? "default",
    ratePerSecond: config.dnsQueryRatePerSecond(),
  });
  return {
    domains: databaseDomainQueue(),
    check: {
      lookupDns,
      checkDomain: (name, dns, maxHostWaitMs) =>
        checkDomain({ ...checkDeps, dns: () => Promise.resolve(dns) }, name, null, { maxHostWaitMs }),
      hostPausedUntil: (serverUrl) => sharedHostLimiter().pausedUntil(new URL(serverUrl).host),
      now: Date.now,
    },
    dispatch: (deadline) =>
      dispatchDueDeliveries(defaultDispatcherDeps(), {
        deadline,
        maxDeliveries: settings.maxDeliveriesPerRun,
      }),
    now: Date.now,
  };
}
