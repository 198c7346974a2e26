import { assertEquals } from "../support/assert.ts";
import {
  type Classification,
  classify,
  type RegistryAnswer,
} from "../../supabase/functions/_shared/availability/classify.ts";
import { rdapFailureReason } from "../../supabase/functions/_shared/contract/schemas.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import type { RdapDomain } from "../../supabase/functions/_shared/rdap/domain_response.ts";
import type { WhoisOutcome } from "../../supabase/functions/_shared/availability/whois_check.ts";
import type { WhoisReading } from "../../supabase/functions/_shared/whois/answer.ts";

const url = "https://rdap.registry.test/domain/example.test";

function found(status: string[]): RegistryAnswer {
  const domain: RdapDomain = {
    ldhName: "example.test",
    unicodeName: null,
    status,
    registrar: null,
    registrationDate: null,
    expirationDate: null,
    lastChangedDate: null,
    registrarRdapUrl: null,
  };
  return { outcome: "found", url, httpStatus: 200, domain };
}

const notFound: RegistryAnswer = { outcome: "not_found", url, httpStatus: 404 };
const delegated: DnsOutcome = { outcome: "delegated", nameservers: ["ns1.test"], rcode: "NOERROR" };
const notDelegated: DnsOutcome = { outcome: "not_delegated", rcode: "NXDOMAIN" };
const dnsTimeout: DnsOutcome = { outcome: "error", error: "timeout", rcode: null };
const dnsFailure: DnsOutcome = { outcome: "error", error: "failure", rcode: null };
const dnsServfail: DnsOutcome = { outcome: "error", error: "servfail", rcode: "SERVFAIL" };
const dnsRefused: DnsOutcome = { outcome: "error", error: "refused", rcode: "REFUSED" };
const dnsTruncated: DnsOutcome = { outcome: "error", error: "truncated", rcode: "NOERROR" };
const dnsUnreadable: DnsOutcome = { outcome: "error", error: "unreadable", rcode: null };
const noData: DnsOutcome = { outcome: "not_delegated", rcode: "NOERROR" };

Deno.test("RDAP 200 is registered whatever DNS says", () => {
  for (const dns of [delegated, notDelegated, dnsTimeout] as DnsOutcome[]) {
    assertEquals(classify(found(["active"]), dns), {
      available: false,
      status: "registered",
      reason: "rdap_found",
    });
    assertEquals(classify(found([]), dns), { available: false, status: "registered", reason: "rdap_found" });
  }
});

Deno.test("pending delete or redemption period is pending_delete", () => {
  for (
    const status of [["pending delete"], ["redemption period"], [
      "client hold",
      "pending delete",
      "redemption period",
    ]]
  ) {
    assertEquals(classify(found(status), notDelegated), {
      available: false,
      status: "pending_delete",
      reason: "rdap_pending_delete",
    });
  }
  assertEquals(classify(found(["pending transfer", "pending restore"]), delegated).status, "registered");
});

Deno.test("RDAP 404 and no delegation (NXDOMAIN, or NOERROR without NS) is available", () => {
  for (const dns of [notDelegated, noData]) {
    assertEquals(classify(notFound, dns), {
      available: true,
      status: "available",
      reason: "rdap_not_found",
    });
  }
});

Deno.test("a 404 from a server whose canary has not proved it is unknown, whatever DNS says", () => {
  const unverified: RegistryAnswer = { outcome: "unverified", url, httpStatus: 404 };
  for (const dns of [notDelegated, noData, delegated, dnsTimeout, dnsServfail]) {
    assertEquals(classify(unverified, dns), {
      available: null,
      status: "unknown",
      reason: "rdap_server_unverified",
    });
  }
});

Deno.test("RDAP 404 but delegated is registered", () => {
  assertEquals(classify(notFound, delegated), {
    available: false,
    status: "registered",
    reason: "rdap_404_but_delegated",
  });
});

Deno.test("RDAP 404 with a DNS error is unknown, never available", () => {
  for (const dns of [dnsTimeout, dnsFailure, dnsServfail, dnsRefused, dnsTruncated, dnsUnreadable]) {
    assertEquals(classify(notFound, dns), {
      available: null,
      status: "unknown",
      reason: "rdap_not_found_dns_error",
    });
  }
});

Deno.test("no RDAP server: DNS only, never available", () => {
  const noServer: RegistryAnswer = { outcome: "no_server" };
  assertEquals(classify(noServer, delegated), {
    available: false,
    status: "registered",
    reason: "no_rdap_server_for_tld",
  });
  for (const dns of [notDelegated, dnsTimeout] as DnsOutcome[]) {
    assertEquals(classify(noServer, dns), {
      available: null,
      status: "unknown",
      reason: "no_rdap_server_for_tld",
    });
  }
});

Deno.test("RDAP failures are unknown with their reason, even when DNS is clear", () => {
  const clearOrDelegated: DnsOutcome[] = [delegated, notDelegated];
  // Every failure reason the contract publishes for the RDAP client.
  for (const reason of rdapFailureReason.options) {
    const failed: RegistryAnswer = { outcome: "failed", url, httpStatus: null, reason, retryAt: null };
    for (const dns of clearOrDelegated) {
      const classification: Classification = classify(failed, dns);
      assertEquals(classification, { available: null, status: "unknown", reason });
    }
  }
});

Deno.test("no bootstrap copy at all is unknown", () => {
  assertEquals(classify({ outcome: "bootstrap_unavailable" }, notDelegated), {
    available: null,
    status: "unknown",
    reason: "rdap_bootstrap_unavailable",
  });
});

/** A WHOIS reading with the given answer (the rest empty). */
function whoisRead(
  answer: "found" | "not_found" | "pending_delete" | "rate_limited" | "unrecognized",
): RegistryAnswer {
  return {
    outcome: "whois",
    server: "whois.registry.test:43",
    whois: {
      kind: "read",
      reading: { answer, statuses: [], registrar: null, expirationDate: null } as unknown as WhoisReading,
    },
  };
}

const whoisOutcome = (whois: WhoisOutcome): RegistryAnswer => ({
  outcome: "whois",
  server: "whois.registry.test:43",
  whois,
});

/**
 * A live check (`delegationDecides`): a registry that could not be read, with a delegation in DNS, is
 * registered (`dns_delegated`); without one, or for the poller, it stays unknown with its own reason. Never
 * the other way: no registry failure ever yields `available`. One row per case: answer, DNS, live result,
 * poller result.
 */
const delegationCases: [string, RegistryAnswer, DnsOutcome, Classification, Classification][] = (() => {
  const unknown = (reason: Classification["reason"]): Classification => ({
    available: null,
    status: "unknown",
    reason,
  });
  const byDns: Classification = { available: false, status: "registered", reason: "dns_delegated" };
  const rows: [string, RegistryAnswer, DnsOutcome, Classification, Classification][] = [];
  const rdapFailures = [
    "rdap_timeout",
    "rdap_server_error",
    "rdap_rate_limited",
    "rdap_invalid_response",
    "rdap_network_error",
    "rdap_unexpected_status",
    "rdap_target_not_allowed",
  ] as const;
  for (const reason of rdapFailures) {
    const failed: RegistryAnswer = { outcome: "failed", url, httpStatus: 500, reason, retryAt: null };
    rows.push([`RDAP ${reason}, delegated`, failed, delegated, byDns, unknown(reason)]);
    for (const dns of [notDelegated, dnsTimeout]) {
      rows.push([`RDAP ${reason}, ${dns.outcome}`, failed, dns, unknown(reason), unknown(reason)]);
    }
  }
  for (const reason of ["rdap_host_busy", "rdap_rate_limited", "rdap_host_backoff"] as const) {
    const refused: RegistryAnswer = { outcome: "refused", url, httpStatus: null, reason, retryAt: null };
    rows.push([`RDAP refused (${reason}), delegated`, refused, delegated, byDns, unknown(reason)]);
    rows.push([
      `RDAP refused (${reason}), not delegated`,
      refused,
      notDelegated,
      unknown(reason),
      unknown(reason),
    ]);
  }
  rows.push([
    "bootstrap unavailable, delegated",
    { outcome: "bootstrap_unavailable" },
    delegated,
    byDns,
    unknown("rdap_bootstrap_unavailable"),
  ]);
  for (const reason of ["whois_host_busy", "whois_rate_limited", "whois_host_backoff"] as const) {
    const refused = whoisOutcome({ kind: "refused", reason, until: null });
    rows.push([`WHOIS refused (${reason}), delegated`, refused, delegated, byDns, unknown(reason)]);
    rows.push([
      `WHOIS refused (${reason}), DNS error`,
      refused,
      dnsServfail,
      unknown(reason),
      unknown(reason),
    ]);
  }
  for (const reason of ["whois_timeout", "whois_network_error"] as const) {
    const failed = whoisOutcome({ kind: "failed", reason });
    rows.push([`WHOIS ${reason}, delegated`, failed, delegated, byDns, unknown(reason)]);
    rows.push([`WHOIS ${reason}, not delegated`, failed, notDelegated, unknown(reason), unknown(reason)]);
  }
  for (const reason of ["whois_too_large", "whois_truncated"] as const) {
    const failed = whoisOutcome({ kind: "failed", reason });
    rows.push([`WHOIS ${reason}, delegated`, failed, delegated, byDns, unknown("whois_unrecognized")]);
  }
  rows.push([
    "WHOIS limit text, delegated",
    whoisRead("rate_limited"),
    delegated,
    byDns,
    unknown("whois_rate_limited"),
  ]);
  rows.push([
    "WHOIS unrecognised, delegated",
    whoisRead("unrecognized"),
    delegated,
    byDns,
    unknown("whois_unrecognized"),
  ]);
  rows.push([
    "WHOIS unrecognised, not delegated",
    whoisRead("unrecognized"),
    noData,
    unknown("whois_unrecognized"),
    unknown("whois_unrecognized"),
  ]);
  // What is decided stays decided; an unproven "not found" stays unknown (the spec), whatever DNS says.
  const registered: Classification = { available: false, status: "registered", reason: "rdap_found" };
  rows.push(["RDAP 200, delegated", found(["active"]), delegated, registered, registered]);
  const pending: Classification = {
    available: false,
    status: "pending_delete",
    reason: "whois_pending_delete",
  };
  rows.push(["WHOIS pending delete, delegated", whoisRead("pending_delete"), delegated, pending, pending]);
  const unverified: RegistryAnswer = { outcome: "unverified", url, httpStatus: 404 };
  rows.push([
    "RDAP 404 unproven, delegated",
    unverified,
    delegated,
    unknown("rdap_server_unverified"),
    unknown("rdap_server_unverified"),
  ]);
  rows.push([
    "WHOIS not found unproven, delegated",
    whoisOutcome({ kind: "unverified" }),
    delegated,
    unknown("whois_server_unverified"),
    unknown("whois_server_unverified"),
  ]);
  const butDelegated: Classification = {
    available: false,
    status: "registered",
    reason: "rdap_404_but_delegated",
  };
  rows.push(["RDAP 404 proven, delegated", notFound, delegated, butDelegated, butDelegated]);
  return rows;
})();

Deno.test("a delegated name whose registry cannot be read is registered for a live check (dns_delegated)", () => {
  for (const [label, registry, dns, live, poller] of delegationCases) {
    assertEquals(classify(registry, dns, { delegationDecides: true }), live, `live: ${label}`);
    assertEquals(classify(registry, dns), poller, `poller: ${label}`);
  }
});

Deno.test("no registry failure ever yields available, live or not", () => {
  const dnsAnswers = [
    delegated,
    notDelegated,
    noData,
    dnsTimeout,
    dnsFailure,
    dnsRefused,
    dnsTruncated,
    dnsUnreadable,
  ];
  for (const [label, registry] of delegationCases) {
    if (registry.outcome === "not_found" || registry.outcome === "found") continue;
    for (const dns of dnsAnswers) {
      for (const delegationDecides of [true, false]) {
        const result = classify(registry, dns, { delegationDecides });
        assertEquals(
          result.available === true || result.status === "available",
          false,
          `${label}, ${dns.outcome}`,
        );
      }
    }
  }
});
