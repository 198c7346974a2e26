/**
 * Email alerts, the pure parts: the mail (subject, both parts, the evidence line, one-click unsubscribe
 * headers, the digest), SMTP_URL's rules and the reply classes, which claimed mails are skipped, the
 * link endpoint's token reading, and the local mailbox's MIME reading.
 */
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import type { AlertEvent } from "../../supabase/functions/_shared/alerts/alert_event.ts";
import {
  alertEmail,
  confirmationEmail,
  emailSubject,
} from "../../supabase/functions/_shared/alerts/email_message.ts";
import {
  mailFromAddress,
  readSmtpUrl,
  smtpFailure,
} from "../../supabase/functions/_shared/alerts/smtp_settings.ts";
import { mailSkipReason } from "../../supabase/functions/_shared/alerts/email_dispatcher.ts";
import type { ClaimedMail } from "../../supabase/functions/_shared/alerts/email_queue.ts";
import { appLinkPage, linkToken } from "../../supabase/functions/_shared/email_links/handler.ts";
import { decodeEncodedWords, parseMail } from "../../platform/mailbox/mime.ts";

const drop: AlertEvent = {
  id: "evt_1",
  type: "domain.available",
  createdAt: new Date("2026-11-22T10:04:06Z"),
  domainName: "drop-demo.com",
  unicodeName: null,
  previousStatus: "pending_delete",
  status: "available",
  checkedAt: new Date("2026-11-22T10:04:05.123Z"),
  evidence: {
    source: "rdap",
    server: "https://rdap.verisign.com/com/v1/",
    answer: 404,
    canary_name: "nic.com",
    canary_proved_at: "2026-11-22T07:04:05.123Z",
    dns_rcode: "NXDOMAIN",
    resolver: "1.1.1.1:53",
    checked_at: "2026-11-22T10:04:05.123Z",
  },
};

const links = {
  unsubscribeUrl: "https://p.supabase.co/functions/v1/email-links/unsubscribe?token=ab12",
  settingsUrl: null,
};

Deno.test("one event: the chat message's words and evidence in both parts, and one-click unsubscribe", () => {
  const mail = alertEmail([drop], links, "d-1");
  assertEquals(mail.subject, "drop-demo.com is available.");
  assert(mail.text.startsWith("drop-demo.com is available.\n"), mail.text);
  assert(
    mail.text.includes("Registry RDAP: not found · proven on nic.com 3 h ago · DNS NXDOMAIN"),
    mail.text,
  );
  assert(
    mail.html.includes("Registry RDAP: not found · proven on nic.com 3 h ago · DNS NXDOMAIN"),
    mail.html,
  );
  assert(mail.text.includes(`Unsubscribe this address (one click): ${links.unsubscribeUrl}`), mail.text);
  assertEquals(mail.headers["List-Unsubscribe"], `<${links.unsubscribeUrl}>`);
  assertEquals(mail.headers["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click");
  assertEquals(mail.headers["X-Service-Delivery"], "d-1");
  assertEquals(mail.headers["X-Service-Event"], "domain.available");
});

Deno.test("a team address's mail names the organization and the claimer (escaped in HTML)", () => {
  const team: AlertEvent = {
    ...drop,
    organization: { id: "o-1", name: "Acme <Legal>" },
    claimedBy: "Mia\nM.",
  };
  const mail = alertEmail([team], links, "d-2");
  assert(
    mail.text.startsWith("drop-demo.com is available.\nAcme <Legal>'s list · claimed by Mia M.\n"),
    mail.text,
  );
  assert(
    mail.text.includes("an alert channel of the organization Acme <Legal> on Domain Watchlist."),
    mail.text,
  );
  assert(mail.html.includes("Acme &#60;Legal&#62;&#39;s list · claimed by Mia M."), mail.html);
  assert(!mail.html.includes("<Legal>"), mail.html);
  const personal = alertEmail([drop], links, "d-3");
  assert(personal.text.includes("an alert channel of a Domain Watchlist account."), personal.text);
  assert(!personal.text.includes("claimed"), personal.text);
});

Deno.test("a digest lists every event in one mail, oldest first", () => {
  const events = [
    drop,
    { ...drop, id: "evt_2", domainName: "second.com", evidence: null },
    {
      ...drop,
      id: "evt_3",
      type: "domain.pending_delete" as const,
      domainName: "third.com",
      predictedDropAt: new Date("2026-11-27T10:00:00Z"),
      predictionBasis: "pending_delete_period" as const,
    },
  ];
  const mail = alertEmail(events, links, "d-1");
  assertEquals(mail.subject, "3 alerts: drop-demo.com is available; second.com is available and 1 more");
  assert(mail.text.startsWith("3 alerts for your watched names:"), mail.text);
  const order = ["1. drop-demo.com", "2. second.com", "3. third.com entered pending delete"].map((line) =>
    mail.text.indexOf(line)
  );
  assert(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1])), mail.text);
  assertEquals(mail.headers["X-Service-Event"], "digest");
  assertEquals((mail.html.match(/<h2/g) ?? []).length, 3);
});

Deno.test("the HTML part escapes every value; the subject is clipped", () => {
  const hostile = { ...drop, registrar: "<script>x</script>", type: "domain.registered" as const };
  const mail = alertEmail([hostile], { ...links, settingsUrl: "https://app.example/alerts?a=1&b=2" }, "d");
  assert(!mail.html.includes("<script>"), mail.html);
  assert(mail.html.includes("&#60;script&#62;"), mail.html);
  assert(mail.html.includes('href="https://app.example/alerts?a=1&#38;b=2"'), mail.html);
  const many = Array.from(
    { length: 30 },
    (_, index) => ({ ...drop, domainName: `${"x".repeat(60)}${index}.com` }),
  );
  assert(emailSubject(many).length <= 150);
});

Deno.test("a test alert says it reaches this address", () => {
  const mail = alertEmail([{ ...drop, type: "test", domainName: "example.com", evidence: null }], links, "d");
  assertEquals(mail.subject, "Test alert from Domain Watchlist");
  assert(mail.text.includes("alerts reach this address"), mail.text);
});

Deno.test("the confirmation mail carries the link and its time limit", () => {
  const mail = confirmationEmail(
    "https://x.test/email-links/confirm?token=ff",
    new Date("2026-12-07T09:00:00Z"),
  );
  assert(mail.text.includes("https://x.test/email-links/confirm?token=ff"));
  assert(mail.text.includes("2026-12-07 09:00 UTC"));
  assert(mail.html.includes('href="https://x.test/email-links/confirm?token=ff"'));
  assertEquals(mail.headers["List-Unsubscribe"], undefined);
});

Deno.test("SMTP_URL: smtps anywhere, plain smtp only to loopback, never quoting the password", () => {
  const cases: [string, string | { host: string; port: number; secure: boolean; user: string | null }][] = [
    ["smtps://user:p%40ss@smtp.example.com:465", {
      host: "smtp.example.com",
      port: 465,
      secure: true,
      user: "user",
    }],
    ["smtps://user:pw@smtp.example.com", { host: "smtp.example.com", port: 465, secure: true, user: "user" }],
    ["smtp://127.0.0.1:54325", { host: "127.0.0.1", port: 54325, secure: false, user: null }],
    ["smtp://localhost:2525", { host: "localhost", port: 2525, secure: false, user: null }],
    ["smtp://user:secret@smtp.example.com:587", "plain smtp:// is allowed only for a loopback host"],
    ["https://smtp.example.com", "must start with smtps://"],
    ["not a url", "is not a URL"],
    ["smtps://u:p@host.example:465/path", "no path"],
  ];
  for (const [raw, expected] of cases) {
    const reading = readSmtpUrl(raw);
    if (typeof expected === "string") {
      assert(!reading.ok && reading.problem.includes(expected), `${raw}: ${JSON.stringify(reading)}`);
      assert(!reading.ok && !reading.problem.includes("secret"), "the problem never quotes the URL");
    } else {
      assert(reading.ok, raw);
      const { host, port, secure, user } = reading.settings;
      assertEquals({ host, port, secure, user }, expected, raw);
    }
  }
  const ok = readSmtpUrl("smtps://user:p%40ss@smtp.example.com:465");
  assert(ok.ok && ok.settings.password === "p@ss");
});

Deno.test("SMTP replies: 5yz is permanent, 4yz and no reply are retried", () => {
  const permanent = smtpFailure(550, "smtp_550");
  assert(permanent.kind === "failed" && permanent.permanent);
  const transient = smtpFailure(451, "smtp_451");
  assert(transient.kind === "failed" && !transient.permanent);
  const noReply = smtpFailure(null, "smtp_econnection");
  assert(noReply.kind === "failed" && !noReply.permanent);
  assertEquals(mailFromAddress("Domain Watchlist <alerts@example.com>"), "alerts@example.com");
  assertEquals(mailFromAddress("alerts@example.com"), "alerts@example.com");
  assertEquals(mailFromAddress("Domain Watchlist"), null);
});

Deno.test("claimed mails to a removed, stopped, switched-off or unconfirmed address are skipped", () => {
  const mail: ClaimedMail = {
    mailId: "m",
    addressId: "a",
    to: "me@example.com",
    addressStatus: "active",
    addressEnabled: true,
    unsubscribeToken: "t",
    deliveries: [{ id: "m", attemptCount: 0, failureCount: 0, createdAt: new Date(), event: drop }],
  };
  assertEquals(mailSkipReason(mail), null);
  assertEquals(mailSkipReason({ ...mail, addressId: null, to: null }), "email_address_removed");
  assertEquals(mailSkipReason({ ...mail, addressStatus: "stopped" }), "email_stopped");
  assertEquals(mailSkipReason({ ...mail, addressStatus: "pending" }), "email_unconfirmed");
  assertEquals(mailSkipReason({ ...mail, addressEnabled: false }), "email_disabled");
  assertEquals(mailSkipReason({ ...mail, to: null }), "account_email_unconfirmed");
  const test = { ...mail.deliveries[0], event: { ...drop, type: "test" as const } };
  assertEquals(
    mailSkipReason({ ...mail, addressEnabled: false, deliveries: [test] }),
    null,
    "tests ignore the switch",
  );
});

Deno.test("email-links reads the token from the query (RFC 8058) or a JSON body (the app)", () => {
  assertEquals(linkToken("abc", null), "abc");
  assertEquals(linkToken(undefined, { token: "def" }), "def");
  assertEquals(linkToken(undefined, { token: 5 }), null);
  assertEquals(linkToken(undefined, null), null);
  assertEquals(
    appLinkPage("https://app.example/", "unsubscribe", "ab"),
    "https://app.example/email-link?action=unsubscribe&token=ab",
  );
  assertEquals(appLinkPage(undefined, "confirm", "ab"), null);
});

Deno.test("the local mailbox reads multipart mails: headers, quoted-printable and base64 parts", () => {
  const raw = [
    "From: Alerts <alerts@example.com>",
    "To: me@example.com",
    "Subject: =?UTF-8?Q?b=C3=BCcher=2Eexample_is?= =?UTF-8?B?IGF2YWlsYWJsZQ==?=",
    "List-Unsubscribe: <https://x.test/u?token=1>",
    "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
    "Content-Type: multipart/alternative;",
    ' boundary="--_b1"',
    "",
    "----_b1",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    "b=C3=BCcher.example is available. A long line that was =",
    "soft-broken.",
    "----_b1",
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: base64",
    "",
    btoa("<p>hello</p>"),
    "----_b1--",
    "",
  ].join("\r\n");
  const binary = String.fromCharCode(...new TextEncoder().encode(raw));
  const mail = parseMail(binary);
  assertEquals(mail.headers.get("subject"), ["bücher.example is available"]);
  assertEquals(mail.headers.get("list-unsubscribe-post"), ["List-Unsubscribe=One-Click"]);
  assertMatch(mail.text, /^bücher\.example is available\. A long line that was soft-broken\.\n?$/);
  assertEquals(mail.html, "<p>hello</p>");
  assertEquals(decodeEncodedWords("plain"), "plain");
});
