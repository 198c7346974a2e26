/**
 * The evidence behind an `available` result (the `domain.available` event's `data.evidence`): what the
 * registry's server answered on the route the check took, when that server last proved itself on its
 * canary, and the DNS answer. Built from the check's route result, so every route (RDAP today, WHOIS) fills
 * the same shape. Pure.
 */
import type { AvailabilityEvidence } from "../contract/webhook_event.ts";

export type { AvailabilityEvidence };

/** A server's canary proof as the check saw it. */
export interface CanaryProof {
  canaryName: string;
  /** When the canary last answered as registered (null when unknown). */
  provedAt: Date | null;
}

/** The registry's "not found" on the route the check took. */
export type RouteNotFound =
  /** RDAP: the base URL asked and its HTTP status (404). */
  | { source: "rdap"; server: string; httpStatus: number; proof: CanaryProof }
  /** WHOIS: the host asked and the server's own "not found" phrasing that matched. */
  | { source: "whois"; server: string; match: string; proof: CanaryProof };

/** The DNS answer that found no delegation, and the resolver that gave it. */
export interface UndelegatedAnswer {
  rcode: "NXDOMAIN" | "NOERROR";
  resolver: string;
}

export function availabilityEvidence(
  route: RouteNotFound,
  dns: UndelegatedAnswer,
  checkedAt: string,
): AvailabilityEvidence {
  return {
    source: route.source,
    server: route.server,
    answer: route.source === "rdap" ? route.httpStatus : route.match,
    canary_name: route.proof.canaryName,
    canary_proved_at: route.proof.provedAt?.toISOString() ?? null,
    dns_rcode: dns.rcode,
    resolver: dns.resolver,
    checked_at: checkedAt,
  };
}
