/** The poller's dependencies from the environment: the shared RDAP engine, DNS, the database. */
import { checkDomainWithEvidence, defaultCheckDeps } from "../availability/check_domain.ts";
import { databaseDropCorrections } from "../availability/drop_corrections.ts";
import { configuredNsOptions, defaultNsLookup, resolverFor } from "../dns/nameservers.ts";
import { config } from "../config.ts";
import { realSleep, sharedHostLimiter, sharedWhoisLimiter } from "../rdap/host_limiter.ts";
import { databaseDomainQueue } from "./domain_queue.ts";
import { rateLimitedLookup } from "./dns_rate_limit.ts";
import type { PollerDeps } from "./run_poller.ts";
import { databaseDueProofs, type ProofRefreshDeps } from "./proof_refresh.ts";
import { serverProofState } from "../availability/server_proof.ts";
import { proveWhoisServer } from "../availability/whois_check.ts";
import type { CheckDeps } from "../availability/check_domain.ts";

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
    proofs: proofRefresh(checkDeps),
  };
}

/** Due canary proofs from the database, asked through the check's own clients, limiters and proof store. */
function proofRefresh(checkDeps: CheckDeps): ProofRefreshDeps {
  return {
    dueProofs: databaseDueProofs(),
    async refresh(proof, wait) {
      if (proof.kind === "rdap") {
        await serverProofState(checkDeps.proof, checkDeps.rdap, proof, {
          maxHostWaitMs: wait.maxWaitMs,
          waitForOtherMs: 0,
        });
        return;
      }
      const entry = await checkDeps.whois?.directory.entryFor(proof.canaryName);
      if (!checkDeps.whois || entry?.kind !== "route") return;
      if (entry.route.suffix !== proof.suffix || entry.route.server !== proof.server) return;
      await proveWhoisServer(checkDeps.whois.check, entry.route, wait);
    },
    now: Date.now,
  };
}
