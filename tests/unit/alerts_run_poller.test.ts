/** The poller run's orchestration with in-memory names and scripted checks (no network, no database). */
import { assert, assertEquals } from "../support/assert.ts";
import type {
  CheckedDomain,
  CheckResult,
} from "../../supabase/functions/_shared/availability/check_domain.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import type { ClaimedDomain, DomainQueue } from "../../supabase/functions/_shared/poller/domain_queue.ts";
import { type PollerDeps, runPoller } from "../../supabase/functions/_shared/poller/run_poller.ts";
import type { PollerSettings } from "../../supabase/functions/_shared/poller/settings.ts";

const settings: PollerSettings = {
  timeBudgetMs: 25_000,
  leaseSeconds: 120,
  batchSize: 5,
  concurrency: 3,
  maxChecksPerRun: 1_000,
  hostQueue: 3,
};

function result(name: string, overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    domain_name: name,
    unicode_name: null,
    available: false,
    status: "registered",
    checked_at: new Date().toISOString(),
    rdap: {
      server: "https://rdap.example/",
      http_status: 200,
      status: ["active"],
      registrar: null,
      registration_date: null,
      expiration_date: null,
      last_changed_date: null,
    },
    whois: null,
    dns: { delegated: false, nameservers: [], rcode: "NXDOMAIN" },
    reason: "rdap_found",
    ...overrides,
  };
}

function harness(
  names: string[],
  answer: (name: string) => CheckResult | CheckedDomain | Error,
  delegated: string[] = [],
) {
  const clock = { now: 1_000_000 };
  const due = names.map((name): ClaimedDomain => ({
    name,
    status: "pending_delete",
    expiresAt: null,
    registrar: null,
    lastCheckedAt: null,
    registryAskedAt: null,
    reminderDays: [],
  }));
  const log = {
    claimedTotal: 0,
    recorded: [] as string[],
    delegated: [] as string[],
    deferred: [] as string[],
    deferredUntil: [] as number[],
  };
  const domains: DomainQueue = {
    claim(limit) {
      const batch = due.splice(0, limit);
      log.claimedTotal += batch.length;
      return Promise.resolve(
        // A delegated name after the first registry pass (poller/dns_first.ts): nothing left to learn.
        batch.map((d) =>
          delegated.includes(d.name)
            ? { ...d, status: "registered", registryAskedAt: new Date(clock.now - 1_000) }
            : d
        ),
      );
    },
    recordCheck(checked) {
      log.recorded.push(checked.domain_name);
      return Promise.resolve();
    },
    recordDelegated(domain) {
      log.delegated.push(domain.name);
      return Promise.resolve();
    },
    defer(name, notBefore) {
      log.deferred.push(name);
      log.deferredUntil.push(notBefore.getTime());
      return Promise.resolve();
    },
  };
  const deps: PollerDeps = {
    domains,
    check: {
      lookupDns: (name): Promise<DnsOutcome> =>
        Promise.resolve(
          delegated.includes(name)
            ? { outcome: "delegated", nameservers: ["ns.example"], rcode: "NOERROR" }
            : { outcome: "not_delegated", rcode: "NXDOMAIN" },
        ),
      checkDomain: (name) => {
        clock.now += 10;
        const outcome = answer(name);
        return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
      },
      hostPausedUntil: () => clock.now + 60_000,
      now: () => clock.now,
    },
    now: () => clock.now,
    sleep: (ms) => {
      clock.now += ms;
      return Promise.resolve();
    },
  };
  return { deps, log, clock, due };
}

Deno.test("every due name is claimed once; delegated names are recorded from DNS alone", async () => {
  const names = Array.from({ length: 23 }, (_, i) => `n${i}.test`);
  const h = harness(names, (name) => result(name), ["n1.test", "n2.test"]);
  const summary = await runPoller(h.deps, settings);
  assertEquals(summary.checked, 23);
  assertEquals(summary.registered_by_dns, 2);
  assertEquals(summary.stopped_because, "no_due_work");
  assertEquals(h.log.claimedTotal, 23);
  assertEquals([...h.log.recorded, ...h.log.delegated].sort(), [...names].sort());
});

Deno.test("a run stops claiming at maxChecksPerRun", async () => {
  const names = Array.from({ length: 50 }, (_, i) => `n${i}.test`);
  const h = harness(names, (name) => result(name));
  const summary = await runPoller(h.deps, { ...settings, maxChecksPerRun: 12 });
  assertEquals(h.log.claimedTotal, 12);
  assertEquals(summary.checked, 12);
  assertEquals(summary.stopped_because, "check_limit");
  assertEquals(h.due.length, 38, "the rest stays due for the next run");
});

Deno.test("names the registry was not asked about are deferred, not recorded; errors are counted", async () => {
  const h = harness(["busy.test", "boom.test", "ok.test"], (name) => {
    if (name === "boom.test") return new Error("database went away");
    if (name === "busy.test") {
      return {
        result: result(name, {
          status: "unknown",
          available: null,
          reason: "rdap_rate_limited",
          rdap: { ...result(name).rdap!, http_status: null },
        }),
        evidence: null,
        refusal: { reason: "rdap_rate_limited", until: null },
      };
    }
    return result(name, { status: "available", available: true, reason: "rdap_not_found" });
  });
  const summary = await runPoller(h.deps, { ...settings, concurrency: 1 });
  assertEquals(h.log.deferred, ["busy.test"]);
  assertEquals(h.log.recorded, ["ok.test"]);
  assertEquals([summary.deferred, summary.errors, summary.became_available], [1, 1, 1]);
});

Deno.test("after the time budget, claimed names are released at once", async () => {
  const names = Array.from({ length: 5 }, (_, i) => `slow${i}.test`);
  const h = harness(names, (name) => {
    h.clock.now += 8_000; // each check takes 8 s
    return result(name);
  });
  const summary = await runPoller(h.deps, { ...settings, concurrency: 1 });
  // 25 s budget (alerts have a run of their own): four checks start within it, the last is released.
  assertEquals(summary.checked, 4);
  assertEquals(summary.deferred, 1);
  assert(summary.duration_ms >= 32_000);
});

Deno.test("a name whose RDAP host had no turn left this run waits for the next run, not this one", async () => {
  const h = harness(["queued.test"], (name) => ({
    result: result(name, {
      status: "unknown",
      available: null,
      reason: "rdap_host_busy",
      rdap: { ...result(name).rdap!, http_status: null },
    }),
    evidence: null,
    refusal: { reason: "rdap_host_busy", until: null },
  }));
  const startedAt = h.clock.now;
  const summary = await runPoller(h.deps, settings);
  assertEquals(summary.deferred, 1);
  assertEquals(h.log.deferredUntil, [startedAt + 25_000], "due again when this run's budget is over");
});

Deno.test("a worker does not wait for a registry: it claims and records other names meanwhile", async () => {
  const others = Array.from({ length: 9 }, (_, i) => `other${i}.test`);
  let registryAnswers: () => void = () => {};
  const answered = new Promise<void>((resolve) => registryAnswers = resolve);
  const h = harness(["slow.test", ...others], (name) => result(name), others);
  const checkDomain = h.deps.check.checkDomain;
  h.deps.check.checkDomain = async (name, dns, wait) => {
    await answered; // the registry answers only once every other name is recorded
    return checkDomain(name, dns, wait);
  };
  const recordDelegated = h.deps.domains.recordDelegated;
  h.deps.domains.recordDelegated = async (domain, at) => {
    await recordDelegated(domain, at);
    if (h.log.delegated.length === others.length) registryAnswers();
  };
  const summary = await runPoller(h.deps, { ...settings, concurrency: 1 });
  assertEquals(summary.checked, 10);
  assertEquals(h.log.recorded, ["slow.test"]);
});

Deno.test("a routine name waits for its host until the run's end, within the host's queue; one in pending delete is urgent", async () => {
  const waits: [string, number, boolean | undefined, number | undefined][] = [];
  const h = harness(["routine.test", "dropping.test"], (name) => result(name));
  h.due[0].status = "registered";
  const startedAt = h.clock.now;
  h.deps.check.checkDomain = (name, _dns, wait) => {
    waits.push([name, h.clock.now + wait.maxHostWaitMs!, wait.urgent, wait.maxHostQueue]);
    return Promise.resolve(result(name));
  };
  await runPoller(h.deps, { ...settings, hostQueue: 7 });
  assertEquals(waits.sort(), [
    ["dropping.test", startedAt + 25_000, true, undefined],
    ["routine.test", startedAt + 25_000, false, 7],
  ]);
});

Deno.test("a worker with nothing due keeps claiming while the run's names wait for their registries", async () => {
  let registryAnswers: () => void = () => {};
  const answered = new Promise<void>((resolve) => registryAnswers = resolve);
  const h = harness(["slow.test"], (name) => result(name));
  const checkDomain = h.deps.check.checkDomain;
  h.deps.check.checkDomain = async (name, dns, wait) => {
    if (name === "slow.test") await answered; // answered once the late name has been checked
    return checkDomain(name, dns, wait);
  };
  const sleep = h.deps.sleep;
  let idle = 0;
  h.deps.sleep = (ms) => {
    // Nothing due: a name comes due while slow.test still waits for its registry.
    if (++idle === 1) {
      h.due.push({
        name: "late.test",
        status: "pending_delete",
        expiresAt: null,
        registrar: null,
        lastCheckedAt: null,
        registryAskedAt: null,
        reminderDays: [],
      });
    }
    return sleep(ms);
  };
  const recordCheck = h.deps.domains.recordCheck;
  h.deps.domains.recordCheck = async (checked, followUp) => {
    await recordCheck(checked, followUp);
    if (checked.domain_name === "late.test") registryAnswers();
  };
  const summary = await runPoller(h.deps, { ...settings, concurrency: 1 });
  assertEquals(h.log.recorded.sort(), ["late.test", "slow.test"]);
  assertEquals(summary.stopped_because, "no_due_work");
});
