/**
 * DNS first: a name delegated in DNS is registered, so the registry need not be asked. It is asked anyway
 * when its answer can say more than "registered": for a name in pending delete (still delegated while it
 * may be restored or drop), and for a name past its known expiry (renewed, or entering redemption).
 */
import type { DnsOutcome } from "../dns/nameservers.ts";

export interface KnownState {
  status: string;
  expiresAt: Date | null;
}

export function needsRegistryCheck(known: KnownState, dns: DnsOutcome, now: Date): boolean {
  if (dns.outcome !== "delegated") return true;
  if (known.status === "pending_delete") return true;
  return known.expiresAt !== null && known.expiresAt.getTime() <= now.getTime();
}
