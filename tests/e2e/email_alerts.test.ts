/**
 * Email alerts end to end, through the local mailbox's SMTP side (platform/mailbox/smtp.ts on a free port)
 * and its Mailpit-shaped API: a drop reaches the account's own address as one mail with a text and an HTML
 * part, the evidence and the RFC 8058 headers; an extra address is confirmed by the mailed link; events
 * within the digest window go as one mail; the one-click unsubscribe POST stops an address; a permanent
 * SMTP failure (550) three times stops the account's address; a delivery is redelivered.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { startSmtp } from "../../platform/mailbox/smtp.ts";
import { startMailbox } from "../../platform/mailbox/server.ts";
import { deleteMails } from "../../platform/mailbox/store.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack, type TestStack, uniqueDomain } from "../support/stack.ts";
import { postToPoller } from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const WINDOW_SECONDS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface MailSummary {
  ID: string;
  Subject: string;
  To: { Address: string }[];
}

interface Mail {
  ID: string;
  Subject: string;
  Text: string;
  HTML: string;
  ListUnsubscribe: { Header: string; Links: string[]; HeaderPost: string };
}

/** A name the account watches, pending delete, then available (the check's evidence noted as the poller does). */
async function drop(sql: postgres.Sql, account: CreatedAccount, tld = "mailtest"): Promise<string> {
  const name = uniqueDomain("drop", tld);
  await sql`insert into public.domains (name, status, last_checked_at) values (${name}, 'pending_delete', now())`;
  await asAccount(sql, account, (tx) => tx`select * from public.add_watchlist_domains(${[name]})`);
  await sql.begin(async (tx) => {
    const [row] = await tx<{ checked_at: Date }[]>`
      update public.domains set status = 'available', last_checked_at = date_trunc('milliseconds', now())
       where name = ${name}
      returning last_checked_at as checked_at`;
    const evidence = {
      source: "rdap",
      server: "https://rdap.example/",
      answer: 404,
      canary_name: `nic.${tld}`,
      canary_proved_at: row.checked_at.toISOString(),
      dns_rcode: "NXDOMAIN",
      resolver: "127.0.0.1:53",
      checked_at: row.checked_at.toISOString(),
    };
    await tx`select private.note_check_evidence(${name}, ${row.checked_at}, ${tx.json(evidence)})`;
  });
  return name;
}

async function deliveries(stack: TestStack) {
  return await postToPoller(stack, "/rdap-poller/deliveries");
}

Deno.test("email alerts through the local mailbox's SMTP", options, async (t) => {
  const rejected = new Set<string>();
  const smtp = startSmtp({
    port: 0,
    rejectRecipient: (address) => rejected.has(address) ? "550 5.1.1 <" + address + ">: No such user" : null,
  });
  const mailbox = startMailbox({ port: 0 });
  const stack = await startStack({
    SMTP_URL: smtp.url,
    ALERT_MAIL_FROM: "Domain Watchlist <alerts@localhost>",
    EMAIL_DIGEST_WINDOW_SECONDS: String(WINDOW_SECONDS),
    DELIVERY_IDLE_LINGER_MS: "100",
    APP_URL: "http://localhost:3999",
  });
  const { sql } = stack;
  deleteMails();
  const owner = await stack.account("pro", { email: true });

  const mailsTo = async (address: string): Promise<MailSummary[]> => {
    const response = await fetch(`${mailbox.url}/api/v1/search?query=${encodeURIComponent(`to:${address}`)}`);
    return ((await response.json()) as { messages: MailSummary[] }).messages;
  };
  const mail = async (id: string): Promise<Mail> =>
    await (await fetch(`${mailbox.url}/api/v1/message/${id}`)).json();
  const headers = async (id: string): Promise<Record<string, string[]>> =>
    await (await fetch(`${mailbox.url}/api/v1/message/${id}/headers`)).json();
  const channels = async (account: CreatedAccount) =>
    (await asAccount(sql, account, (tx) =>
      tx<{ list: { channels: Record<string, unknown>[] } }[]>`
      select public.list_email_channels() as list`))[0].list.channels;

  try {
    let firstDeliveryId = "";
    await t.step(
      "a drop: one mail to the account's own address, both parts, evidence and one-click headers",
      async () => {
        const name = await drop(sql, owner);
        const early = await deliveries(stack);
        assertEquals(early.email.mails_sent, 0, "nothing leaves before the digest window");
        await sleep(WINDOW_SECONDS * 1000 + 200);
        const run = await deliveries(stack);
        assertEquals(run.email.mails_sent, 1, JSON.stringify(run));
        const [summary, ...more] = await mailsTo(owner.email);
        assertEquals(more.length, 0);
        const received = await mail(summary.ID);
        assertEquals(received.Subject, `${name} is available.`);
        assert(received.Text.includes(`${name} is available.`), received.Text);
        assert(
          received.Text.includes(
            "Registry RDAP: not found · proven on nic.mailtest <1 min ago · DNS NXDOMAIN",
          ),
          JSON.stringify(received.Text),
        );
        assert(received.HTML.includes("Registry RDAP: not found"), received.HTML);
        assertMatch(
          received.ListUnsubscribe.Links[0],
          /\/functions\/v1\/email-links\/unsubscribe\?token=[0-9a-f]{48}$/,
        );
        assertEquals(received.ListUnsubscribe.HeaderPost, "List-Unsubscribe=One-Click");
        const head = await headers(summary.ID);
        firstDeliveryId = head["X-Service-Delivery"][0];
        assertEquals(head["X-Service-Event"], ["domain.available"]);
        const [{ status }] = await sql<{ status: string }[]>`
        select status from public.alert_deliveries where id = ${firstDeliveryId}`;
        assertEquals(status, "delivered");
      },
    );

    let teamAddress = "";
    await t.step("an extra address is confirmed by the mailed link", async () => {
      teamAddress = `team-${crypto.randomUUID().slice(0, 8)}@example.test`;
      const [{ added }] = await asAccount(
        sql,
        owner,
        (tx) =>
          tx<{ added: { status: string; address_masked: string } }[]>`
          select public.add_email_address(${teamAddress}) as added`,
      );
      assertEquals(added.status, "pending");
      assertEquals(added.address_masked, `t•••@example.test`);
      await deliveries(stack);
      const [confirmation] = await mailsTo(teamAddress);
      assert(confirmation, "a confirmation mail went to the new address");
      const link = (await mail(confirmation.ID)).Text.match(
        /https?:\/\/\S+\/email-links\/confirm\?token=[0-9a-f]{48}/,
      )![0];
      const opened = await fetch(link, { redirect: "manual" });
      await opened.body?.cancel();
      assertEquals(opened.status, 303, "opening the link changes nothing: it goes to the app's page");
      assertMatch(
        opened.headers.get("location")!,
        /^http:\/\/localhost:3999\/email-link\?action=confirm&token=/,
      );
      assertEquals((await channels(owner)).find((c) => !c.is_account)?.status, "pending");
      const confirmed = await fetch(link, { method: "POST" });
      assertEquals(await confirmed.json(), { status: "confirmed" });
      const again = await fetch(link, { method: "POST" });
      assertEquals(again.status, 404, "a link works once");
      await again.body?.cancel();
      assertEquals((await channels(owner)).find((c) => !c.is_account)?.status, "active");
    });

    await t.step("several events within the window go as one digest per address", async () => {
      deleteMails();
      const names = [await drop(sql, owner), await drop(sql, owner), await drop(sql, owner)];
      await sleep(WINDOW_SECONDS * 1000 + 200);
      const run = await deliveries(stack);
      assertEquals(run.email.mails_sent, 2, JSON.stringify(run.email));
      assertEquals(run.email.deliveries_sent, 6);
      for (const address of [owner.email, teamAddress]) {
        const [digest, ...more] = await mailsTo(address);
        assertEquals(more.length, 0, `one mail to ${address}`);
        const received = await mail(digest.ID);
        assertMatch(received.Subject, /^3 alerts: /);
        for (const name of names) assert(received.Text.includes(name), received.Text);
        assertEquals((await headers(digest.ID))["X-Service-Event"], ["digest"]);
      }
    });

    await t.step("the one-click unsubscribe POST (RFC 8058) stops the address", async () => {
      const [latest] = await mailsTo(teamAddress);
      const url = (await mail(latest.ID)).ListUnsubscribe.Links[0];
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      assertEquals(response.status, 200);
      assertEquals(await response.json(), { status: "unsubscribed" });
      const team = (await channels(owner)).find((c) => !c.is_account)!;
      assertEquals([team.status, team.stopped_reason], ["stopped", "unsubscribed"]);
      deleteMails();
      await drop(sql, owner);
      await sleep(WINDOW_SECONDS * 1000 + 200);
      await deliveries(stack);
      assertEquals((await mailsTo(teamAddress)).length, 0, "nothing more reaches it");
      assertEquals((await mailsTo(owner.email)).length, 1, "the account's own address still gets its mail");
    });

    await t.step("a delivery is redelivered under its id", async () => {
      deleteMails();
      const [result] = await asAccount(
        sql,
        owner,
        (tx) =>
          tx<
            { result: { status: string } }[]
          >`select public.redeliver_email_delivery(${firstDeliveryId}) as result`,
      );
      assertEquals(result.result.status, "pending");
      await deliveries(stack);
      const [again] = await mailsTo(owner.email);
      assert(again, "the redelivered mail arrived");
      assertEquals((await headers(again.ID))["X-Service-Delivery"], [firstDeliveryId]);
      const ownId = (await channels(owner)).find((c) => c.is_account)!.id as string;
      const [{ log }] = await asAccount(
        sql,
        owner,
        (tx) =>
          tx<
            {
              log: {
                deliveries: { id: string; redelivery_count: number; attempts: { smtp_code: number }[] }[];
              };
            }[]
          >`
          select public.list_email_deliveries(${ownId}, 100) as log`,
      );
      const entry = log.deliveries.find((d) => d.id === firstDeliveryId)!;
      assertEquals(entry.redelivery_count, 1);
      assertEquals(entry.attempts.map((a) => a.smtp_code), [250, 250]);
    });

    await t.step("a permanent SMTP failure, three mails in a row, stops the address", async () => {
      const bouncing = await stack.account("free", { email: true });
      rejected.add(bouncing.email);
      for (let mailNumber = 1; mailNumber <= 3; mailNumber++) {
        await drop(sql, bouncing);
        await sleep(WINDOW_SECONDS * 1000 + 200);
        const run = await deliveries(stack);
        assertEquals(run.email.mails_failed, 1, JSON.stringify(run.email));
        const own = (await channels(bouncing))[0];
        assertEquals(own.permanent_failures, mailNumber === 3 ? 3 : mailNumber);
        assertEquals(own.status, mailNumber === 3 ? "stopped" : "active");
      }
      const own = (await channels(bouncing))[0];
      assertEquals(own.stopped_reason, "bounced", "the app can say why");
      const [{ error, http_status }] = await sql<{ error: string; http_status: number }[]>`
        select a.error, a.http_status from public.alert_delivery_attempts as a
          join public.alert_deliveries as d on d.id = a.delivery_id
         where d.user_id = ${bouncing.user_id} order by a.attempted_at desc limit 1`;
      assertEquals(http_status, 550);
      assert(!error.includes(bouncing.email), `no address in the log: ${error}`);
      await drop(sql, bouncing);
      const [{ count }] = await sql<{ count: number }[]>`
        select count(*)::int as count from public.alert_deliveries
         where user_id = ${bouncing.user_id} and channel = 'email' and status = 'pending'`;
      assertEquals(count, 0, "a stopped address gets no new deliveries");
    });
  } finally {
    await stack.close();
    await mailbox.close();
    await smtp.close();
  }
});
