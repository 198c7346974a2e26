import {
  dnsQueryCounts,
  rateLimitedLookup,
  resetDnsRateLimits,
} from "../../supabase/functions/_shared/poller/dns_rate_limit.ts";
import { assertEquals } from "../support/assert.ts";

function fakeClock() {
  let time = 1_000_000;
  return {
    now: () => time,
    sleep: (ms: number) => {
      time += Math.max(0, ms);
      return Promise.resolve();
    },
  };
}

Deno.test("DNS queries to one resolver are counted and spaced by 1 / rate across callers", async () => {
  resetDnsRateLimits();
  const clock = fakeClock();
  const started: number[] = [];
  const lookup = (_name: string) => {
    started.push(clock.now());
    return Promise.resolve({ outcome: "not_delegated" as const, rcode: "NXDOMAIN" as const });
  };
  const a = rateLimitedLookup(lookup, { resolver: "127.0.0.1:53", ratePerSecond: 10, ...clock });
  const b = rateLimitedLookup(lookup, { resolver: "127.0.0.1:53", ratePerSecond: 10, ...clock });
  const other = rateLimitedLookup(lookup, { resolver: "doh", ratePerSecond: 10, ...clock });
  for (let i = 0; i < 3; i++) {
    await a(`a${i}.test`);
    await b(`b${i}.test`);
  }
  await other("c.test");
  for (let i = 1; i < 6; i++) assertEquals(started[i] - started[i - 1] >= 100, true, JSON.stringify(started));
  assertEquals(dnsQueryCounts(), { "127.0.0.1:53": 6, doh: 1 });
});

Deno.test("a DNS rate of 0 does not space queries", async () => {
  resetDnsRateLimits();
  const clock = fakeClock();
  const lookup = rateLimitedLookup(
    () => Promise.resolve({ outcome: "not_delegated" as const, rcode: "NXDOMAIN" as const }),
    {
      resolver: "r",
      ratePerSecond: 0,
      ...clock,
    },
  );
  const before = clock.now();
  await lookup("x.test");
  await lookup("y.test");
  assertEquals(clock.now(), before);
  assertEquals(dnsQueryCounts(), { r: 2 });
});
