/**
 * The environment end-to-end tests give `startStack`: where the functions find the local fakes, and the
 * short run budgets the tests' poller and delivery runs use.
 */

/** Points the functions at the fakes given: RDAP (its bootstrap), DNS, WHOIS and the Telegram Bot API. */
export function fakesEnv(fakes: {
  rdap?: { url: string };
  dns?: { address: string };
  whois?: { address: string };
  telegram?: { url: string; token: string };
}): Record<string, string> {
  const env: Record<string, string> = {};
  if (fakes.rdap) env.RDAP_BOOTSTRAP_URL = `${fakes.rdap.url}dns.json`;
  if (fakes.dns) env.DNS_NAMESERVER = fakes.dns.address;
  if (fakes.whois) env.WHOIS_SERVER = fakes.whois.address;
  if (fakes.telegram) {
    env.TELEGRAM_API_BASE = fakes.telegram.url;
    env.TELEGRAM_BOT_TOKEN = fakes.telegram.token;
  }
  return env;
}

/** Poller and delivery runs of 8 s at most, a delivery run lingering 100 ms for new work. */
export const runBudgetsEnv: Record<string, string> = {
  POLLER_TIME_BUDGET_MS: "8000",
  DELIVERY_TIME_BUDGET_MS: "8000",
  DELIVERY_IDLE_LINGER_MS: "100",
};
