/**
 * One table of hostile URL forms through both judges: the edge functions' `judgeUrl` and the database's
 * `private.outbound_url_problem` (which `create_webhook_endpoint` uses). Verdicts and wording must agree in
 * both modes (WEBHOOK_ALLOW_PRIVATE_TARGETS off and on), and each verdict is the expected one.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/stack.ts";
import { judgeUrl, webhookTargetProblem } from "../../supabase/functions/_shared/net/url_policy.ts";

type Verdict = "ok" | "no";
/** [url, verdict with private targets refused, verdict with them allowed (local use)] */
export const HOSTILE_URLS: [string, Verdict, Verdict][] = [
  // Plain forms
  ["https://hooks.example.com/x", "ok", "ok"],
  ["HTTPS://Hooks.Example.COM:8443/a?b#c", "ok", "ok"],
  ["https://hooks.example.com:/x", "ok", "ok"],
  ["https://hooks.example.com:65536/", "no", "no"],
  ["https://hooks.example.com:99999999999999999999/", "no", "no"],
  ["https://hooks.example.com:0065535/", "no", "no"],
  ["http://hooks.example.com/x", "no", "ok"],
  ["ftp://hooks.example.com/x", "no", "no"],
  ["https:hooks.example.com/x", "no", "no"],
  ["https:/hooks.example.com/x", "no", "no"],
  ["https:///hooks.example.com/x", "no", "no"],
  ["https://", "no", "no"],
  ["https://8.8.8.8/", "ok", "ok"],
  ["https://[2001:4860:4860::8888]/x", "ok", "ok"],
  ["https://a-b.example.com/ü/%20", "ok", "ok"],
  // Percent-encoding in the host
  ["https://127.0.0.%31/", "no", "no"],
  ["https://%6c%6fcalhost/", "no", "no"],
  ["https://example.com%2e/", "no", "no"],
  ["https://169.254.169.254%2F@example.com/", "no", "no"],
  // Backslashes, userinfo, whitespace and control characters
  ["https://127.0.0.1\\@example.com/", "no", "no"],
  ["https://example.com\\@127.0.0.1/", "no", "no"],
  ["https://user:pw@example.com/", "no", "no"],
  ["https://example.com@127.0.0.1/", "no", "no"],
  ["https://@example.com/", "no", "no"],
  ["https://127.0.0.\t1/", "no", "no"],
  ["https://exam\nple.com/", "no", "no"],
  [" https://example.com/", "no", "no"],
  ["https://example.com/ x", "no", "no"],
  ["https://example.com/\u007f", "no", "no"],
  // Unicode digits and IDNA mapping
  ["https://１２７.０.０.１/", "no", "no"],
  ["https://127。0。0。1/", "no", "no"],
  ["https://ｌｏｃａｌｈｏｓｔ/", "no", "no"],
  ["https://bücher.example/", "no", "no"],
  ["https://xn--bcher-kva.example/", "no", "no"],
  ["https://xn--a.com/", "no", "no"],
  ["https://exa\u00admple.com/", "no", "no"],
  ["https://example.com\u3002/", "no", "no"],
  ["https://a_b.example.com/", "no", "no"],
  // IPv4 in decimal, hex, octal and short forms
  ["https://2130706433/", "no", "no"],
  ["https://0x7f000001/", "no", "no"],
  ["https://0x7f.0.0.1/", "no", "no"],
  ["https://0177.0.0.1/", "no", "no"],
  ["https://127.1/", "no", "no"],
  ["https://127.0.1/", "no", "no"],
  ["https://08.8.8.8/", "no", "no"],
  ["https://1.2.3.0x4/", "no", "no"],
  ["https://example.0x/", "no", "no"],
  ["https://example.123/", "no", "no"],
  ["https://256.1.1.1/", "no", "no"],
  ["https://127.0.0.1/", "no", "ok"],
  ["https://127.255.0.9:8080/", "no", "ok"],
  ["https://0.0.0.0/", "no", "no"],
  ["https://10.0.0.1/", "no", "no"],
  ["https://172.16.5.4/", "no", "no"],
  ["https://192.168.1.1/", "no", "no"],
  ["https://100.64.0.1/", "no", "no"],
  ["https://255.255.255.255/", "no", "no"],
  ["https://127.0.0.1.nip.io/", "ok", "ok"],
  // IPv6, including IPv4-mapped, unique-local and link-local
  ["https://[::1]/", "no", "ok"],
  ["https://[0:0:0:0:0:0:0:1]/", "no", "ok"],
  ["https://[::]/", "no", "no"],
  ["https://[::ffff:127.0.0.1]/", "no", "ok"],
  ["https://[::ffff:7f00:1]/", "no", "ok"],
  ["https://[::ffff:169.254.169.254]/", "no", "no"],
  ["https://[::ffff:a9fe:a9fe]/", "no", "no"],
  ["https://[::ffff:8.8.8.8]/", "ok", "ok"],
  ["https://[::ffff:127.0.0.01]/", "no", "no"],
  ["https://[::127.0.0.1]/", "no", "ok"],
  ["https://[64:ff9b::a9fe:a9fe]/", "no", "no"],
  ["https://[2002:a9fe:a9fe::1]/", "no", "no"],
  ["https://[2002:0808:0808::1]/", "ok", "ok"],
  ["https://[2002::1]/", "no", "no"],
  ["https://[2001::1]/", "no", "no"],
  ["https://[fd00::1]/", "no", "no"],
  ["https://[fd00:ec2::254]/", "no", "no"],
  ["https://[fc00::5]/", "no", "no"],
  ["https://[fe80::1]/", "no", "no"],
  ["https://[fe80::1%25eth0]/", "no", "no"],
  ["https://[fec0::1]/", "no", "no"],
  ["https://[ff02::1]/", "no", "no"],
  ["https://[2001:db8::1]/", "no", "no"],
  ["https://[::ffff:0:a9fe:a9fe]/", "no", "no"],
  ["https://[::ffff:0:808:808]/", "no", "no"],
  ["https://[::ffff:0:7f00:1]/", "no", "no"],
  ["https://[5f00::1]/", "no", "no"],
  ["https://[5f00:ffff::1]/", "no", "no"],
  ["https://[3fff::1]/", "no", "no"],
  ["https://[3fff:fff::1]/", "no", "no"],
  ["https://[3fff:1000::1]/", "ok", "ok"],
  ["https://[5f01::1]/", "ok", "ok"],
  ["https://[1.2.3.4]/", "no", "no"],
  ["https://[1::2::3]/", "no", "no"],
  ["https://[1:2:3:4:5:6:7:8:9]/", "no", "no"],
  ["https://[1:2:3:4:5:6:7::]/", "ok", "ok"],
  ["https://[::1:2:3:4:5:6:7]/", "ok", "ok"],
  ["https://[1:2:3:4:5:6:7:1.2.3.4]/", "no", "no"],
  ["https://[12345::]/", "no", "no"],
  ["https://[2001:4860:4860::8888]:443/", "ok", "ok"],
  // Trailing dots and empty labels
  ["https://example.com./", "no", "no"],
  ["https://localhost./", "no", "no"],
  ["https://127.0.0.1./", "no", "no"],
  ["https://example..com/", "no", "no"],
  ["https://.example.com/", "no", "no"],
  // localhost variants and single labels
  ["https://localhost/", "no", "ok"],
  ["https://LOCALHOST:8080/", "no", "ok"],
  ["http://localhost:8080/hook", "no", "ok"],
  ["https://api.localhost/", "no", "ok"],
  ["https://localhost.localdomain/", "no", "no"],
  ["https://ip6-localhost/", "no", "no"],
  ["https://intranet/", "no", "no"],
  // Cloud metadata names and addresses
  ["https://169.254.169.254/latest/meta-data/", "no", "no"],
  ["http://169.254.169.254/", "no", "no"],
  ["https://metadata.google.internal/computeMetadata/v1/", "no", "no"],
  ["https://METADATA.GOOGLE.INTERNAL/", "no", "no"],
  ["https://metadata/", "no", "no"],
  ["https://metadata.goog/", "no", "no"],
  ["https://instance-data.ec2.internal/", "no", "no"],
  ["https://something.internal/", "no", "no"],
  ["https://printer.local/", "no", "no"],
  ["https://router.home.arpa/", "no", "no"],
  ["https://100.100.100.200/", "no", "no"],
  ["https://192.0.0.192/", "no", "no"],
  ["https://[fd00:ec2::254]/latest/", "no", "no"],
  // Length
  [`https://example.com/${"a".repeat(2030)}`, "no", "no"],
  [`https://example.com/${"a".repeat(2028)}`, "ok", "ok"],
];

Deno.test("the URL judge in TypeScript and in SQL give the same verdict on every hostile form", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const mismatches: string[] = [];
    for (const [url, strict, local] of HOSTILE_URLS) {
      for (const [allowPrivate, expected] of [[false, strict], [true, local]] as const) {
        const ts = judgeUrl(url, allowPrivate);
        const [row] = await sql<{ problem: string | null }[]>`
          select private.outbound_url_problem(${url}, ${allowPrivate}) as problem`;
        const tsProblem = ts.ok ? null : ts.problem;
        const label = `${JSON.stringify(url)} (private targets ${allowPrivate ? "allowed" : "refused"})`;
        if (tsProblem !== row.problem) mismatches.push(`${label}: TS ${tsProblem} / SQL ${row.problem}`);
        if ((tsProblem === null ? "ok" : "no") !== expected) {
          mismatches.push(`${label}: expected ${expected}`);
        }
      }
    }
    assertEquals(mismatches, []);
  } finally {
    await sql.end();
  }
});

Deno.test("the judge keeps the WHATWG parser's reading: what it accepts parses to the host it judged", () => {
  for (const [url] of HOSTILE_URLS) {
    const verdict = judgeUrl(url, true);
    if (!verdict.ok) continue;
    const host = verdict.url.hostname.replace(/^\[|\]$/g, "");
    assertEquals(host === verdict.host || verdict.kind === "ip", true, url);
  }
});

/**
 * [url, kind, verdict] for a webhook endpoint of that kind: the judge, then the kind's documented host
 * (the same in both modes: Slack and Discord URLs are never local).
 */
export const WEBHOOK_KIND_URLS: [string, string, Verdict][] = [
  ["https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX", "slack", "ok"],
  ["https://HOOKS.SLACK.COM/services/T0001/B0002/abc_DEF-1", "slack", "ok"],
  ["HTTPS://hooks.slack.com/services/T0001/B0002/abc", "slack", "ok"],
  ["https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX", "generic", "ok"],
  ["https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX", "discord", "no"],
  ["https://hooks.example.com/services/T0001/B0002/x", "slack", "no"],
  ["https://hooks.slack.com.evil.example/services/T0001/B0002/x", "slack", "no"],
  ["https://evilhooks.slack.com/services/T0001/B0002/x", "slack", "no"],
  ["https://slack.com/services/T0001/B0002/x", "slack", "no"],
  ["http://hooks.slack.com/services/T0001/B0002/x", "slack", "no"],
  ["https://hooks.slack.com:443/services/T0001/B0002/x", "slack", "no"],
  ["https://hooks.slack.com:8443/services/T0001/B0002/x", "slack", "no"],
  ["https://hooks.slack.com/services/", "slack", "no"],
  ["https://hooks.slack.com/services", "slack", "no"],
  ["https://hooks.slack.com/triggers/T0001/B0002/x", "slack", "no"],
  ["https://hooks.slack.com/services/T0001/../../x", "slack", "no"],
  ["https://hooks.slack.com/services/T0001/B0002/x?y=1", "slack", "no"],
  ["https://hooks.slack.com/services/T0001/B0002/x#frag", "slack", "no"],
  ["https://user@hooks.slack.com/services/T0001/B0002/x", "slack", "no"],
  ["https://127.0.0.1/services/T0001/B0002/x", "slack", "no"],
  ["https://localhost/services/T0001/B0002/x", "slack", "no"],
  ["https://discord.com/api/webhooks/123456789012345678/abcDEF_ghi-jkl", "discord", "ok"],
  ["https://discordapp.com/api/webhooks/123456789012345678/abcDEF_ghi-jkl", "discord", "ok"],
  ["https://Discord.com/api/v10/webhooks/123456789012345678/tok", "discord", "ok"],
  ["https://discord.com/api/webhooks/123456789012345678/tok?wait=true&thread_id=42", "discord", "ok"],
  ["https://discord.com/api/webhooks/123456789012345678/tok", "slack", "no"],
  ["https://discord.com/api/webhooks/123456789012345678/tok", "generic", "ok"],
  ["https://discord.gg/api/webhooks/123456789012345678/tok", "discord", "no"],
  ["https://evil.discord.com/api/webhooks/123456789012345678/tok", "discord", "no"],
  ["https://discord.com.evil.example/api/webhooks/123456789012345678/tok", "discord", "no"],
  ["http://discord.com/api/webhooks/123456789012345678/tok", "discord", "no"],
  ["https://discord.com/api/webhooks/abc/tok", "discord", "no"],
  ["https://discord.com/api/webhooks/123456789012345678", "discord", "no"],
  ["https://discord.com/api/users/@me", "discord", "no"],
  ["https://discord.com:8443/api/webhooks/123456789012345678/tok", "discord", "no"],
  ["https://discord.com/api/webhooks/123456789012345678/tok/../../x", "discord", "no"],
  ["https://hooks.example.com/x", "teams", "no"],
  ["https://hooks.example.com/x", "", "no"],
];

Deno.test("the webhook kind rule in TypeScript and in SQL give the same verdict on every URL", async () => {
  const sql = postgres.connect(databaseUrl(), { max: 1, onnotice: () => {} });
  try {
    const mismatches: string[] = [];
    for (const [url, kind, expected] of WEBHOOK_KIND_URLS) {
      for (const allowPrivate of [false, true]) {
        const tsProblem = webhookTargetProblem(url, kind, allowPrivate);
        const [row] = await sql<{ problem: string | null }[]>`
          select private.webhook_target_problem(${url}, ${kind}, ${allowPrivate}) as problem`;
        const label = `${JSON.stringify(url)} as ${kind} (private targets ${
          allowPrivate ? "allowed" : "refused"
        })`;
        if (tsProblem !== row.problem) mismatches.push(`${label}: TS ${tsProblem} / SQL ${row.problem}`);
        if ((tsProblem === null ? "ok" : "no") !== expected) {
          mismatches.push(`${label}: expected ${expected}`);
        }
      }
    }
    assertEquals(mismatches, []);
  } finally {
    await sql.end();
  }
});
