/**
 * `deno task fakes`: local stand-ins for the internet services, for trying alerts by hand against
 * `deno task start` (README, "Watch a drop on your machine"). Prints what the webhook receiver and the
 * Telegram fake get. Ctrl-C stops them.
 *
 *   RDAP registry  http://127.0.0.1:9000  (bootstrap at /dns.json for com, net, org)
 *   DNS server     127.0.0.1:9053 (UDP)
 *   WHOIS server   127.0.0.1:9043 (every shipped WHOIS row's phrasing; WHOIS_SERVER=127.0.0.1:9043)
 *   control        http://127.0.0.1:9001  PUT /domains/<name> {"state": "registered"|"pending_delete"|"available"}
 *   webhooks       http://127.0.0.1:9100/hooks/demo  (verifies signatures with --webhook-secret)
 *   Telegram       http://127.0.0.1:9200  (bot token local:fake-bot-token)
 *   Slack          http://127.0.0.1:9300  (hook https://hooks.slack.com/services/T0000/B0000/demo)
 *   Discord        http://127.0.0.1:9301  (hook https://discord.com/api/webhooks/1/demo)
 */
import { parseArgs } from "node:util";
import { startFakeDns } from "../tests/fakes/dns_server.ts";
import { minimalDomain, startFakeRdap } from "../tests/fakes/rdap_server.ts";
import { startFakeTelegram } from "../tests/fakes/telegram_server.ts";
import { startFakeDiscord, startFakeSlack } from "../tests/fakes/chat_webhooks.ts";
import { startWebhookReceiver } from "../tests/fakes/webhook_receiver.ts";
import { startFakeWhois } from "../tests/fakes/whois_server.ts";
import { WHOIS_SAMPLES } from "../tests/fixtures/whois/answers.ts";

const states = ["registered", "pending_delete", "available"] as const;
type DomainState = typeof states[number];

const { values } = parseArgs({ args: Deno.args, options: { "webhook-secret": { type: "string" } } });

const rdap = await startFakeRdap({ port: 9000, tlds: ["com", "net", "org"] });
// Each TLD's canary (example.<tld>, from the shipped server table) is registered, so the registry is
// proven and may say "not found".
for (const tld of ["com", "net", "org"]) rdap.setDomain(`example.${tld}`, { status: 200 });
const dns = await startFakeDns({ port: 9053 });
const whois = startFakeWhois({ port: 9043 });
// The canaries of the shipped WHOIS rows are registered, so each server is proven and may say "not found".
const whoisCanaries: Record<string, string> = {
  "ac.uk": "jisc.ac.uk",
  at: "nic.at",
  au: "auda.org.au",
  be: "dnsbelgium.be",
  cn: "cnnic.cn",
  "co.za": "google.co.za",
  dk: "punktum.dk",
  eu: "eurid.eu",
  gg: "google.gg",
  "gov.uk": "hmrc.gov.uk",
  "gov.za": "dha.gov.za",
  hu: "nic.hu",
  ir: "nic.ir",
  it: "nic.it",
  jp: "jprs.jp",
  kr: "kisa.or.kr",
  kz: "nic.kz",
  mx: "nic.mx",
  "net.za": "registry.net.za",
  nz: "internetnz.nz",
  "org.za": "zadna.org.za",
  "priv.at": "nic.priv.at",
  pt: "dns.pt",
  ro: "rotld.ro",
  ru: "tcinet.ru",
  se: "iis.se",
  tr: "trabis.gov.tr",
};
for (const canary of Object.values(whoisCanaries)) whois.set(canary, "registered");

/** Does a shipped WHOIS row (and so the WHOIS fake) serve this name? */
function servedByWhois(name: string): boolean {
  const labels = name.split(".");
  return labels.some((_, start) => start > 0 && WHOIS_SAMPLES[labels.slice(start).join(".")] !== undefined);
}
const receiver = startWebhookReceiver({ port: 9100 });
receiver.endpoint("demo", { secret: values["webhook-secret"] });
const telegram = startFakeTelegram({ port: 9200, token: "local:fake-bot-token" });
const slack = startFakeSlack({ port: 9300 });
const slackHook = slack.hook("/services/T0000/B0000/demo");
const discord = startFakeDiscord({ port: 9301 });
const discordHook = discord.hook("/api/webhooks/1/demo");

function setState(name: string, state: DomainState): void {
  if (servedByWhois(name)) whois.set(name, state);
  if (state === "available") {
    rdap.setDomain(name, { status: 404 });
    dns.remove(name);
    return;
  }
  const status = state === "pending_delete" ? ["pending delete", "redemption period"] : ["active"];
  rdap.setDomain(name, { status: 200, body: { ...minimalDomain(name), status } });
  if (state === "registered") dns.setDelegated(name, [`ns1.${name}`, `ns2.${name}`]);
  else dns.remove(name);
}

const control = Deno.serve({ hostname: "127.0.0.1", port: 9001, onListen: () => {} }, async (request) => {
  const match = new URL(request.url).pathname.match(/^\/domains\/([^/]+)$/);
  if (!match || request.method !== "PUT") {
    return Response.json({ error: "not_found", message: "Use PUT /domains/<name>." }, { status: 404 });
  }
  const body = await request.json().catch(() => ({}));
  if (!states.includes(body?.state)) {
    return Response.json({ error: "invalid_request", message: `state must be one of ${states.join(", ")}` }, {
      status: 400,
    });
  }
  const name = decodeURIComponent(match[1]).toLowerCase();
  setState(name, body.state);
  console.log(`• ${name} is now ${body.state} at the fake registry`);
  return Response.json({ domain_name: name, state: body.state });
});

console.log(`Local fakes are running:
  RDAP_BOOTSTRAP_URL=${rdap.url}dns.json
  DNS_NAMESERVER=${dns.address}   (UDP/TCP; or DNS over HTTPS: DNS_DOH_URL=${dns.dohUrl})
  WHOIS_SERVER=${whois.address}    (names under the shipped WHOIS rows: .it, .eu, .com.au, .jp, ...)
  TELEGRAM_API_BASE=${telegram.url} TELEGRAM_BOT_TOKEN=${telegram.token}
  webhook URL      ${receiver.url}/hooks/demo${values["webhook-secret"] ? " (signatures verified)" : ""}
  SLACK_WEBHOOK_BASE_URL=${slack.url}     Slack hook (kind slack)     ${slackHook}
  DISCORD_WEBHOOK_BASE_URL=${discord.url} Discord hook (kind discord) ${discordHook}
  control          curl -X PUT http://127.0.0.1:9001/domains/<name> -d '{"state":"pending_delete"}'
Press Ctrl-C to stop.`);

let shownWebhooks = 0;
let shownMessages = 0;
const shown = { Slack: 0, Discord: 0 };
const printer = setInterval(() => {
  for (const hook of receiver.received.slice(shownWebhooks)) {
    const verified = hook.signatureValid === null ? "not checked" : hook.signatureValid ? "valid" : "INVALID";
    console.log(
      `\n▶ webhook ${hook.headers["x-service-event"]} delivery ${hook.headers["x-service-delivery"]}`,
    );
    console.log(`  x-service-signature: ${hook.headers["x-service-signature"] ?? "(none)"} — ${verified}`);
    console.log(`  ${hook.rawBody}`);
  }
  shownWebhooks = receiver.received.length;
  for (const message of telegram.calls.slice(shownMessages)) {
    console.log(`\n▶ Telegram to chat ${message.chatId}:\n  ${message.text.replaceAll("\n", "\n  ")}`);
  }
  shownMessages = telegram.calls.length;
  for (const [name, service] of [["Slack", slack], ["Discord", discord]] as const) {
    for (const message of service.received.slice(shown[name])) {
      console.log(`\n▶ ${name} ${message.path} (answered ${message.status}):\n  ${message.rawBody}`);
    }
    shown[name] = service.received.length;
  }
}, 500);

const stop = async () => {
  clearInterval(printer);
  await Promise.all([
    control.shutdown(),
    rdap.close(),
    dns.close(),
    receiver.close(),
    telegram.close(),
    slack.close(),
    discord.close(),
  ]);
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
