/**
 * Decides a domain's status from the registry's RDAP (or, without RDAP, WHOIS) answer and the DNS
 * delegation, and says why. The one rule that matters most: `available: true` only when the registry's own
 * server, proven by its canary, said "not found" (RDAP 404, or the WHOIS row's exact not-found phrasing)
 * and DNS positively found no delegation (NXDOMAIN, or NOERROR without NS).
 * Anything less certain is `unknown` — except, for a live check (`delegationDecides`), a registry that could
 * not be read (not asked, busy, paused, timeout, error, limit text, unrecognised answer) while DNS shows a
 * delegation: a delegation proves registration, so that is `registered` with reason `dns_delegated`. No
 * registry failure ever yields `available`.
 */
import type { RdapLookup } from "../rdap/client.ts";
import type { DnsOutcome } from "../dns/nameservers.ts";
import { rdapFailureReason, whoisFailureReason } from "../contract/schemas.ts";
import type { CheckReason, DomainStatus } from "../contract/schemas.ts";
import type { WhoisOutcome } from "./whois_check.ts";

/** The statuses and reasons are the API contract's (contract/schemas.ts: `domainStatus`, `checkReason`). */
export type { CheckReason, DomainStatus };

/**
 * The registry's RDAP answer, or why none was asked for. `unverified`: a 404 from a server whose canary
 * has not proved (or no longer proves) that it can say "found".
 */
export type RegistryAnswer =
  | RdapLookup
  | { outcome: "unverified"; url: string; httpStatus: 404 }
  | { outcome: "no_server" }
  /** The name is under a zone with its own WHOIS server this service cannot read (docs/whois.md). */
  | { outcome: "unsupported_zone"; zone: string }
  | { outcome: "bootstrap_unavailable" }
  /** No RDAP route: the registry's WHOIS server was asked (availability/whois_check.ts). */
  | { outcome: "whois"; server: string; whois: WhoisOutcome };

export interface ClassifyOptions {
  /**
   * A live check: an unreadable registry answer with a delegation in DNS is `registered` (`dns_delegated`).
   * The poller leaves it off: the names it asks the registry about are those DNS cannot settle (a name in
   * pending delete stays delegated until it drops).
   */
  delegationDecides?: boolean;
}

export interface Classification {
  available: boolean | null;
  status: DomainStatus;
  reason: CheckReason;
}

const PENDING_DELETE_STATUSES = ["pending delete", "redemption period"];

export function classify(
  registry: RegistryAnswer,
  dns: DnsOutcome,
  options: ClassifyOptions = {},
): Classification {
  const decided = classifyRegistry(registry, dns);
  if (
    options.delegationDecides === true && decided.status === "unknown" && dns.outcome === "delegated" &&
    UNREADABLE_REASONS.has(decided.reason)
  ) {
    return { available: false, status: "registered", reason: "dns_delegated" };
  }
  return decided;
}

/**
 * Undecided answers that say nothing about the name: the registry could not be read (the contract's RDAP and
 * WHOIS failure reasons, a bootstrap that could not be loaded, a WHOIS limit text or unrecognised answer).
 * Not among them: an unproven server's "not found" (`rdap_server_unverified`, `whois_server_unverified`: the
 * spec keeps those `unknown`), a DNS error, a TLD without any route.
 */
const UNREADABLE_REASONS: ReadonlySet<CheckReason> = new Set<CheckReason>([
  ...rdapFailureReason.options,
  "rdap_bootstrap_unavailable",
  ...whoisFailureReason.options,
  "whois_rate_limited",
  "whois_unrecognized",
]);

function classifyRegistry(registry: RegistryAnswer, dns: DnsOutcome): Classification {
  switch (registry.outcome) {
    case "found":
      if (registry.domain.status.some((status) => PENDING_DELETE_STATUSES.includes(status))) {
        return { available: false, status: "pending_delete", reason: "rdap_pending_delete" };
      }
      return { available: false, status: "registered", reason: "rdap_found" };
    case "not_found":
      return provenNotFound(dns, {
        notDelegated: "rdap_not_found",
        delegated: "rdap_404_but_delegated",
        dnsError: "rdap_not_found_dns_error",
      });
    case "unverified":
      return unknown("rdap_server_unverified");
    case "no_server":
      if (dns.outcome === "delegated") {
        return { available: false, status: "registered", reason: "no_rdap_server_for_tld" };
      }
      return unknown("no_rdap_server_for_tld");
    case "unsupported_zone":
      if (dns.outcome === "delegated") {
        return { available: false, status: "registered", reason: "unsupported_zone" };
      }
      return unknown("unsupported_zone");
    case "bootstrap_unavailable":
      return unknown("rdap_bootstrap_unavailable");
    case "failed":
    case "refused":
      return unknown(registry.reason);
    case "whois":
      return classifyWhois(registry.whois, dns);
  }
}

/** The same rules for a WHOIS answer: `available` only for a proven "not found" with no delegation. */
export function classifyWhois(whois: WhoisOutcome, dns: DnsOutcome): Classification {
  if (whois.kind === "unverified") return unknown("whois_server_unverified");
  if (whois.kind === "refused") return unknown(whois.reason);
  if (whois.kind === "failed") {
    switch (whois.reason) {
      case "whois_timeout":
      case "whois_network_error":
        return unknown(whois.reason);
      case "whois_too_large":
      case "whois_truncated":
        return unknown("whois_unrecognized");
    }
  }
  switch (whois.reading.answer) {
    case "found":
      return { available: false, status: "registered", reason: "whois_found" };
    case "pending_delete":
      return { available: false, status: "pending_delete", reason: "whois_pending_delete" };
    case "not_found":
      return provenNotFound(dns, {
        notDelegated: "whois_not_found",
        delegated: "whois_not_found_but_delegated",
        dnsError: "whois_not_found_dns_error",
      });
    case "rate_limited":
      return unknown("whois_rate_limited");
    case "unrecognized":
      return unknown("whois_unrecognized");
  }
}

/**
 * The registry's proven "not found" (RDAP 404 or the WHOIS row's not-found phrasing), decided by DNS: the
 * one place a name becomes `available`, and only when DNS positively found no delegation.
 */
function provenNotFound(
  dns: DnsOutcome,
  reasons: { notDelegated: CheckReason; delegated: CheckReason; dnsError: CheckReason },
): Classification {
  if (dns.outcome === "delegated") {
    return { available: false, status: "registered", reason: reasons.delegated };
  }
  if (dns.outcome === "not_delegated") {
    return { available: true, status: "available", reason: reasons.notDelegated };
  }
  return unknown(reasons.dnsError);
}

function unknown(reason: CheckReason): Classification {
  return { available: null, status: "unknown", reason };
}
