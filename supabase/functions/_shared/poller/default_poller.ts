/** The poller's dependencies from the environment: the shared RDAP engine, DNS, the database. */
import { checkDomainWithEvidence, defaultCheckDeps } from "../availability/check_domain.ts";
import { databaseDropCorrections } from "../availability/drop_corrections.ts";
import { configuredNsOptions, defaultNsLookup, resolverFor } from "../dns/nameservers.ts";
import { config } from "../config.ts";
import { realSleep, sharedHostLimiter, sharedWhoisLimiter } from "../rdap/host_limiter.ts";
import { databaseDomainQueue } from "./domain_queue.ts";
import { rateLimitedLookup } from "./dns_rate_limit.ts";
import type { PollerDeps } from "./run_poller.ts";

export function defaultPollerDeps(): PollerDeps {
  const checkDeps = defaultCheckDeps();
  const lookupDns = rateLimitedLookup(defaultNsLookup(), {
    resolver: resolverFor(configuredNsOptions()).label,
    ratePerSecond: config.dnsQueryRatePerSecond(),
  });
  return {
    domains: databaseDomainQueue(),
    check: {
      lookupDns,
      checkDomain: (name, dns, wait) =>
        checkDomainWithEvidence({ ...checkDeps, dns: () => Promise.resolve(dns) }, name, null, wait),
      // Read once per run: a correction learnt from the last drops applies from the next run on.
      dropCorrections: databaseDropCorrections(),
      hostPausedUntil: (serverUrl) => sharedHostLimiter().pausedUntil(new URL(serverUrl).host),
      whoisHostPausedUntil: (server) => sharedWhoisLimiter().pausedUntil(server),
      now: Date.now,
    },
    now: Date.now,
    sleep: realSleep,
  };
}
