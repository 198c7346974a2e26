/**
 * DNS queries per resolver, counted and kept under a rate: a wrapper around any NS look-up function, so the
 * resolver behind it (UDP/TCP or DoH) can change without touching this. Starts to one resolver are spaced
 * by 1 / `ratePerSecond` across every caller in this process (the key is the resolver). A query waits for
 * its turn rather than failing: a refused look-up would read as a DNS error and cost an RDAP request,
 * which DNS-first exists to save.
 *
 * Per process: with the poller fanned out to N invocations the project asks a resolver at most N × the
 * rate (README, Performance).
 */
import type { NsLookup } from "../dns/nameservers.ts";
import { realSleep, type Sleep } from "../rate_limit/shared_limiter.ts";

export interface DnsRateLimitOptions {
  /** What identifies the resolver (e.g. `DNS_NAMESERVER`'s value); lookups with one key share the rate. */
  resolver: string;
  /** Query starts per second to the resolver; 0 turns the spacing off. */
  ratePerSecond: number;
  now?: () => number;
  sleep?: Sleep;
}

interface ResolverState {
  nextStartAt: number;
  queries: number;
}

const resolvers = new Map<string, ResolverState>();

function stateOf(resolver: string): ResolverState {
  let state = resolvers.get(resolver);
  if (!state) {
    state = { nextStartAt: 0, queries: 0 };
    resolvers.set(resolver, state);
  }
  return state;
}

export function rateLimitedLookup(lookup: NsLookup, options: DnsRateLimitOptions): NsLookup {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const intervalMs = options.ratePerSecond > 0 ? 1000 / options.ratePerSecond : 0;
  return async (domainName) => {
    const state = stateOf(options.resolver);
    const startAt = Math.max(now(), state.nextStartAt);
    state.nextStartAt = startAt + intervalMs;
    if (startAt > now()) await sleep(startAt - now());
    state.queries++;
    return await lookup(domainName);
  };
}

/** DNS queries sent so far by this process, per resolver. */
export function dnsQueryCounts(): Record<string, number> {
  return Object.fromEntries([...resolvers].map(([resolver, state]) => [resolver, state.queries]));
}

/** Forgets every resolver's spacing and count (tests). */
export function resetDnsRateLimits(): void {
  resolvers.clear();
}
