/**
 * The mail sender over implicit TLS (smtps, a provider's port 465) on the Edge Functions' Deno: nodemailer
 * through node:tls to a TLS SMTP server with a certificate from the test CA. The mail arrives when the CA
 * is trusted; with the runtime's own roots the certificate is refused (verification is on) and the failure
 * is one to retry, not a permanent one.
 */
import { smtpSender } from "../../supabase/functions/_shared/alerts/email_sender.ts";
import { alertEmail } from "../../supabase/functions/_shared/alerts/email_message.ts";
import { startSmtp } from "../../platform/mailbox/smtp.ts";
import { allMails } from "../../platform/mailbox/store.ts";
import { assert, assertEquals } from "../support/assert.ts";

const fixtures = new URL("../fixtures/tls/", import.meta.url);
const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("alert mails go over implicit TLS with the certificate verified", options, async () => {
  const smtp = startSmtp({
    port: 0,
    tls: {
      cert: await Deno.readTextFile(new URL("receiver.pem", fixtures)),
      key: await Deno.readTextFile(new URL("receiver.key.pem", fixtures)),
    },
  });
  const ca = await Deno.readTextFile(new URL("ca.pem", fixtures));
  const settings = { host: "127.0.0.1", port: smtp.port, secure: true, user: "apikey", password: "secret" };
  const message = alertEmail(
    [{
      id: "evt_tls",
      type: "domain.available",
      createdAt: new Date(),
      domainName: "tls-drop.test",
      unicodeName: null,
      previousStatus: "pending_delete",
      status: "available",
      checkedAt: new Date(),
    }],
    { unsubscribeUrl: "https://x.test/email-links/unsubscribe?token=00" },
    "mail-tls",
  );
  try {
    const trusted = smtpSender(settings, "Alerts <alerts@example.test>", 5_000, {
      ca,
      servername: "receiver.example.test",
    });
    const sent = await trusted("me@example.test", message, "<mail-tls@example.test>");
    assertEquals(sent.kind, "sent", JSON.stringify(sent));
    const received = allMails().find((mail) => mail.MessageID === "mail-tls@example.test");
    assert(received, "the mail arrived");
    assertEquals(received.Subject, "tls-drop.test is available.");

    const untrusted = smtpSender(settings, "Alerts <alerts@example.test>", 5_000, {
      servername: "receiver.example.test",
    });
    const refused = await untrusted("me@example.test", message, "<mail-tls-2@example.test>");
    assert(refused.kind === "failed" && !refused.permanent, JSON.stringify(refused));
  } finally {
    await smtp.close();
  }
});
