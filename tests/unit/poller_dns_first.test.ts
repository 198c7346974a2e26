/**
 * DNS first: when the poller asks a name's registry and when DNS decides (one table of cases), and what a
 * claimed name's check does when a question that only learns more gets no answer.
 */
import { assert, assertEquals } from "../support/assert.ts";
import type { CheckResult, Refusal } from "../../supabase/functions/_shared/availability/check_domain.ts";
import type { CheckReason } from "../../supabase/functions/_shared/contract/schemas.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import {
  type KnownState,
  REGISTRY_REFRESH_MS,
  registryAnswered,
  type RegistryQuestion,
  registryQuestion,
} from "../../supabase/functions/_shared/poller/dns_first.ts";
import {
  checkClaimedDomain,
  LEARNING_MAX_WAIT_MS,
  LEARNING_RETRY_MS,
  learningRetryAt,
} from "../../supabase/functions/_shared/poller/check_claimed_domain.ts";
import type { ClaimedDomain } from "../../supabase/functions/_shared/poller/domain_queue.ts";
import { runPoller } from "../../supabase/functions/_shared/poller/run_poller.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date("2026-11-01T00:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const ahead = (ms: number) => new Date(NOW.getTime() + ms);

const DELEGATED: DnsOutcome = { outcome: "delegated", nameservers: ["ns1.example.net"], rcode: "NOERROR" };
const NXDOMAIN: DnsOutcome = { outcome: "not_delegated", rcode: "NXDOMAIN" };
const DNS_ERROR: DnsOutcome = { outcome: "error", error: "timeout", rcode: null };
const DEFAULT_DAYS = [30, 7, 1];

/** A registered name after the first registry pass, far from expiry. */
const known: KnownState = {
  status: "registered",
  expiresAt: ahead(200 * DAY),
  lastCheckedAt: ago(7 * DAY),
  registryAskedAt: ago(20 * DAY),
  reminderDays: DEFAULT_DAYS,
};

const CASES: [string, Partial<KnownState>, DnsOutcome, RegistryQuestion | null][] = [
  ["delegated, expiry known far from any window, asked 20 days ago", {}, DELEGATED, null],
  ["not delegated", {}, NXDOMAIN, "not_delegated"],
  ["DNS could not be read", {}, DNS_ERROR, "not_delegated"],
  ["in pending delete", { status: "pending_delete" }, DELEGATED, "pending_delete"],
  ["past its known expiry", { expiresAt: ago(HOUR) }, DELEGATED, "past_expiry"],
  [
    "was available, now delegated",
    { status: "available", registryAskedAt: ago(HOUR) },
    DELEGATED,
    "turned_registered",
  ],
  ["was unknown after a check, now delegated", { status: "unknown" }, DELEGATED, "turned_registered"],
  [
    "first check ever (unknown, never checked): not a transition, but never asked",
    { status: "unknown", lastCheckedAt: null, registryAskedAt: null, expiresAt: null },
    DELEGATED,
    "never_asked",
  ],
  [
    "registered, never asked (expiry unknown)",
    { registryAskedAt: null, expiresAt: null },
    DELEGATED,
    "never_asked",
  ],
  [
    "registered, never asked (expiry known from a live check)",
    { registryAskedAt: null },
    DELEGATED,
    "never_asked",
  ],
  [
    "the registry publishes no expiry: asked 20 days ago, not again before the refresh",
    { expiresAt: null },
    DELEGATED,
    null,
  ],
  [
    "last answer older than the refresh period",
    { registryAskedAt: ago(REGISTRY_REFRESH_MS) },
    DELEGATED,
    "refresh",
  ],
  [
    "expires in 6 days, asked 20 days ago (before the 7-day reminder's ask point)",
    { expiresAt: ahead(6 * DAY) },
    DELEGATED,
    "reminder_window",
  ],
  [
    "expires in 6 days, asked 1 day ago (after the 7-day reminder's ask point, 2 days ago)",
    { expiresAt: ahead(6 * DAY), registryAskedAt: ago(DAY) },
    DELEGATED,
    null,
  ],
  [
    "a day before the 30-day reminder (31 days out), asked 20 days ago",
    { expiresAt: ahead(31 * DAY - HOUR) },
    DELEGATED,
    "reminder_window",
  ],
  [
    "32 days out: not yet within a day of the 30-day reminder",
    { expiresAt: ahead(32 * DAY) },
    DELEGATED,
    null,
  ],
  [
    "expires in 36 h: the 1-day reminder's ask point (2 days out) has passed since the last answer",
    { expiresAt: ahead(36 * HOUR), registryAskedAt: ago(3 * DAY) },
    DELEGATED,
    "reminder_window",
  ],
  [
    "the widest window is a watcher's 60 days",
    { expiresAt: ahead(50 * DAY), reminderDays: [60, 1] },
    DELEGATED,
    "reminder_window",
  ],
  ["no watcher asks for domain.expiring", { expiresAt: ahead(6 * DAY), reminderDays: [] }, DELEGATED, null],
];

Deno.test("DNS first: when the registry is asked (one table of cases)", () => {
  for (const [label, changes, dns, question] of CASES) {
    assertEquals(registryQuestion({ ...known, ...changes }, dns, NOW), question, label);
  }
});

Deno.test("a registry answer is only one that spoke about the name", () => {
  const answered: CheckReason[] = [
    "rdap_found",
    "rdap_pending_delete",
    "whois_found",
    "no_rdap_server_for_tld",
  ];
  for (const reason of answered) assertEquals(registryAnswered(reason), true, reason);
  const not: CheckReason[] = [
    "rdap_host_busy",
    "rdap_timeout",
    "rdap_server_unverified",
    "whois_unrecognized",
  ];
  for (const reason of not) assertEquals(registryAnswered(reason), false, reason);
});

function claimed(changes: Partial<ClaimedDomain> = {}): ClaimedDomain {
  return {
    name: "mine.test",
    status: "registered",
    expiresAt: null,
    registrar: null,
    lastCheckedAt: ago(7 * DAY),
    registryAskedAt: null,
    reminderDays: DEFAULT_DAYS,
    ...changes,
  };
}

function unknownResult(reason: CheckReason, httpStatus: number | null): CheckResult {
  return {
    domain_name: "mine.test",
    unicode_name: null,
    available: null,
    status: "unknown",
    checked_at: NOW.toISOString(),
    rdap: {
      server: "https://rdap.example/",
      http_status: httpStatus,
      status: [],
      registrar: null,
      registration_date: null,
      expiration_date: null,
      last_changed_date: null,
    },
    whois: null,
    dns: { delegated: true, nameservers: ["ns1.example.net"], rcode: "NOERROR" },
    reason,
  };
}

/** A refused turn: the limiter asked nothing (`until`: the host's pause end, when known). */
const refused = (reason: CheckReason, until: number | null = null): Refusal => ({ reason, until });

async function outcomeOf(domain: ClaimedDomain, answer: CheckResult, refusal?: Refusal) {
  return await checkClaimedDomain(
    {
      lookupDns: () => Promise.resolve(DELEGATED),
      checkDomain: () => Promise.resolve({ result: answer, evidence: null, ...(refusal ? { refusal } : {}) }),
      hostPausedUntil: () => null,
      now: () => NOW.getTime(),
    },
    domain,
    { checksEndAt: NOW.getTime() + 20_000 },
  );
}

Deno.test("a delegated name whose registry cannot answer a learning question stays registered", async () => {
  // Busy: asked again in an hour (a first registry pass queues, it does not churn every run).
  assertEquals(await outcomeOf(claimed(), unknownResult("rdap_host_busy", null), refused("rdap_host_busy")), {
    kind: "not_asked",
    notBefore: learningRetryAt("mine.test", NOW.getTime()),
  });
  // Paused longer than that: after the pause.
  const pausedUntil = NOW.getTime() + 2 * LEARNING_RETRY_MS;
  const backoff = refused("rdap_host_backoff", pausedUntil);
  assertEquals(await outcomeOf(claimed(), unknownResult("rdap_host_backoff", null), backoff), {
    kind: "not_asked",
    notBefore: new Date(pausedUntil),
  });
  // Asked, no answer (timeout): registered by DNS, the registry asked again at a later check.
  assertEquals(await outcomeOf(claimed(), unknownResult("rdap_timeout", null)), {
    kind: "delegated",
    checkedAt: NOW,
    registryQuestion: "never_asked",
  });
  // A transition waits for the next run while its host is only busy (so the event carries the registrar)...
  const busy = refused("rdap_host_busy");
  assertEquals(
    await outcomeOf(claimed({ status: "available" }), unknownResult("rdap_host_busy", null), busy),
    {
      kind: "not_asked",
      notBefore: new Date(NOW.getTime() + 20_000),
    },
  );
  // ...and is recorded by DNS when the host is paused or the registry's answer is unreadable (raised once).
  assertEquals(
    await outcomeOf(claimed({ status: "available" }), unknownResult("rdap_host_backoff", null), backoff),
    { kind: "delegated", checkedAt: NOW, registryQuestion: "turned_registered" },
  );
  assertEquals(await outcomeOf(claimed({ status: "available" }), unknownResult("rdap_server_error", 503)), {
    kind: "delegated",
    checkedAt: NOW,
    registryQuestion: "turned_registered",
  });
  // A name in pending delete keeps the old path: an undecided check is a failed check.
  assertEquals(
    (await outcomeOf(claimed({ status: "pending_delete" }), unknownResult("rdap_server_error", 503))).kind,
    "checked",
  );
});

Deno.test("a first registry pass: one learning question per TLD in a run's line, the rest wait an hour", async () => {
  const names = ["a.test", "b.test", "c.test", "d.other", "e.other"];
  const due = names.map((name) => claimed({ name }));
  due.push(claimed({ name: "was-free.test", status: "available" })); // a transition is never held back
  const asked: string[] = [];
  const deferred: { names: string[]; notBefore: number }[] = [];
  const now = NOW.getTime();
  const summary = await runPoller({
    domains: {
      claim: (limit) => Promise.resolve(due.splice(0, limit)),
      recordCheck: () => Promise.resolve(),
      recordDelegated: () => Promise.resolve(),
      defer: (name, notBefore) => {
        deferred.push({ names: [name], notBefore: notBefore.getTime() });
        return Promise.resolve();
      },
      deferBatch: (batch) => {
        for (const { name, notBefore } of batch) {
          deferred.push({ names: [name], notBefore: notBefore.getTime() });
        }
        return Promise.resolve();
      },
    },
    check: {
      lookupDns: () => Promise.resolve(DELEGATED),
      checkDomain: (name) => {
        asked.push(name);
        return Promise.resolve({
          ...unknownResult("rdap_found", 200),
          domain_name: name,
          status: "registered" as const,
          available: false,
        });
      },
      hostPausedUntil: () => null,
      now: () => now,
    },
    now: () => now,
    sleep: () => Promise.resolve(),
  }, {
    timeBudgetMs: 25_000,
    leaseSeconds: 120,
    batchSize: 10,
    concurrency: 1,
    maxChecksPerRun: 100,
    hostQueue: 3,
  });
  assertEquals(asked.sort(), ["a.test", "d.other", "was-free.test"]);
  assertEquals(
    deferred,
    ["b.test", "c.test", "e.other"].map((name) => ({
      names: [name],
      notBefore: learningRetryAt(name, now).getTime(),
    })),
  );
  for (const { notBefore } of deferred) {
    assert(notBefore >= now + 60_000 && notBefore <= now + LEARNING_RETRY_MS, "1 to 60 minutes later");
  }
  assert(new Set(deferred.map((d) => d.notBefore)).size === 3, "spread by name");
  assertEquals([summary.registry_questions, summary.deferred, summary.registered_by_dns], [3, 3, 0]);
});

Deno.test("a learning question takes spare turns; a transition takes the urgent line", async () => {
  const waits: unknown[] = [];
  for (const domain of [claimed(), claimed({ status: "available" })]) {
    await checkClaimedDomain(
      {
        lookupDns: () => Promise.resolve(DELEGATED),
        checkDomain: (_name, _dns, wait) => {
          waits.push(wait);
          return Promise.resolve(unknownResult("rdap_timeout", null));
        },
        hostPausedUntil: () => null,
        now: () => NOW.getTime(),
      },
      domain,
      { checksEndAt: NOW.getTime() + 20_000, hostQueue: 3 },
    );
  }
  assertEquals(waits, [
    { maxHostWaitMs: LEARNING_MAX_WAIT_MS, urgent: false, maxHostQueue: 1 },
    { maxHostWaitMs: 20_000, urgent: true, maxHostQueue: undefined },
  ]);
});
