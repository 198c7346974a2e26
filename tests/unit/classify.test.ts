import { assertEquals } from "../support/assert.ts";
import {
  type Classification,
  classify,
  type RegistryAnswer,
} from "../../supabase/functions/_shared/availability/classify.ts";
import type { DnsOutcome } from "../../supabase/functions/_shared/dns/nameservers.ts";
import type { RdapDomain } from "../../supabase/functions/_shared/rdap/domain_response.ts";

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
  const reasons = [
    "rdap_timeout",
    "rdap_server_error",
    "rdap_rate_limited",
    "rdap_invalid_response",
    "rdap_network_error",
    "rdap_host_backoff",
    "rdap_host_busy",
    "rdap_unexpected_status",
  ] as const;
  const clearOrDelegated: DnsOutcome[] = [delegated, notDelegated];
  for (const reason of reasons) {
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
