/**
 * `deno task bench:registry-share [--names N --years Y --days 30,7,1]`: the steady state of the DNS-first rule
 * (poller/dns_first.ts `registryQuestion`, the real function) for delegated names over years of checks at the
 * database's schedule (`private.next_check_delay` for a registered name: hourly within 7 days of its expiry or
 * past it, daily within 45 days, weekly otherwise). Each name renews at its expiry for a year (the registry's
 * date moves; the poller learns it when it next asks). The first year is a warm-up (it holds the first pass);
 * the figures are over the years after it: checks per name and year, registry questions per name and year by
 * reason, and the share of checks decided by DNS alone. No database, no network: a model of the schedule.
 */
import {
  type RegistryQuestion,
  registryQuestion,
} from "../../supabase/functions/_shared/poller/dns_first.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;
const DELEGATED = { outcome: "delegated" as const, nameservers: ["ns.example"], rcode: "NOERROR" as const };

function flag(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Deno.args[at + 1] : fallback;
}

const names = Number(flag("names", "2000"));
const years = Number(flag("years", "3"));
const reminderDays = flag("days", "30,7,1").split(",").filter(Boolean).map(Number);

/** The database's schedule for a registered name (migration 20261122000700, next_check_delay). */
function nextDelay(expiresAt: number | null, now: number): number {
  if (expiresAt !== null && expiresAt <= now + 7 * DAY) return HOUR;
  if (expiresAt !== null && expiresAt <= now + 45 * DAY) return DAY;
  return 7 * DAY;
}

let checks = 0;
const questions = new Map<RegistryQuestion, number>();
const start = 0;
const warmUpEnd = start + YEAR;
const end = start + (years + 1) * YEAR;
for (let i = 0; i < names; i++) {
  // The registry's date, spread over the first year; the name was added at `start` (never asked).
  let trueExpiry = start + Math.floor((i * 7919) % names / names * YEAR) + DAY;
  let known: number | null = null;
  let askedAt: number | null = null;
  let now = start + (i * 104729 % 7) * DAY / 7;
  while (now < end) {
    while (trueExpiry <= now) trueExpiry += YEAR; // renewed at expiry
    const question = registryQuestion(
      {
        status: "registered",
        expiresAt: known === null ? null : new Date(known),
        lastCheckedAt: new Date(now - DAY),
        registryAskedAt: askedAt === null ? null : new Date(askedAt),
        reminderDays,
      },
      DELEGATED,
      new Date(now),
    );
    if (question !== null) {
      known = trueExpiry;
      askedAt = now;
    }
    if (now >= warmUpEnd) {
      checks++;
      if (question !== null) questions.set(question, (questions.get(question) ?? 0) + 1);
    }
    now += nextDelay(known, now);
  }
}
const asked = [...questions.values()].reduce((a, b) => a + b, 0);
const perNameYear = (n: number) => (n / names / years).toFixed(2);
console.log(
  `deno task bench:registry-share --names ${names} --years ${years} --days ${reminderDays.join(",")}`,
);
console.log(`  checks per name and year       ${perNameYear(checks)}`);
console.log(
  `  registry questions per name    ${perNameYear(asked)} a year (${
    [...questions].map(([reason, n]) => `${reason} ${perNameYear(n)}`).join(", ")
  })`,
);
console.log(`  decided by DNS alone           ${(100 * (1 - asked / checks)).toFixed(1)} % of checks`);
