/**
 * A team email address end to end (issue 42, docs/organizations.md "Team channels and alerts"), through the
 * local mailbox's SMTP side: an admin adds the organization's address, its mailed link confirms it, and a
 * drop of an organization's claimed name sends exactly one team mail naming the organization and the
 * claimer, while the two members who opted in and also watch the name personally get their own personal
 * mail each. The team mail's one-click unsubscribe stops the team address.
 */
import { asAccount } from "../../scripts/lib/accounts.ts";
import { startSmtp } from "../../platform/mailbox/smtp.ts";
import { startMailbox } from "../../platform/mailbox/server.ts";
import { deleteMails } from "../../platform/mailbox/store.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, uniqueDomain } from "../support/stack.ts";
import { postToPoller } from "../support/poller_runs.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const WINDOW_SECONDS = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface MailSummary {
  ID: string;
  Subject: string;
}

Deno.test("a team email address: confirmed, one mail per event naming the claimer", options, async (t) => {
  const smtp = startSmtp({ port: 0 });
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
  const admin = await stack.account("pro", { email: true });
  const member = await stack.account("pro", { email: true });
  await sql`update public.profiles set display_name = 'Mia M.' where id = ${member.user_id}`;
  const teamAddress = `team-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const name = uniqueDomain("teamdrop", "mailtest");

  const mailsTo = async (address: string): Promise<MailSummary[]> => {
    const response = await fetch(`${mailbox.url}/api/v1/search?query=${encodeURIComponent(`to:${address}`)}`);
    return ((await response.json()) as { messages: MailSummary[] }).messages;
  };
  const text = async (id: string): Promise<string> =>
    ((await (await fetch(`${mailbox.url}/api/v1/message/${id}`)).json()) as { Text: string }).Text;
  const unsubscribeLink = async (id: string): Promise<string> =>
    ((await (await fetch(`${mailbox.url}/api/v1/message/${id}`)).json()) as {
      ListUnsubscribe: { Links: string[] };
    }).ListUnsubscribe.Links[0];

  try {
    const [{ org }] = await asAccount(
      sql,
      owner,
      (tx) => tx<{ org: string }[]>`select public.create_organization('Acme') as org`,
    );
    await sql`insert into public.organization_members (organization_id, user_id, role)
              values (${org}, ${admin.user_id}, 'admin'), (${org}, ${member.user_id}, 'member')`;

    await t.step("an admin adds the team's address; its mailed link confirms it", async () => {
      const [{ added }] = await asAccount(
        sql,
        admin,
        (tx) =>
          tx<{ added: { id: string; status: string; address_masked: string } }[]>`
          select public.add_organization_email_address(${org}, ${teamAddress}) as added`,
      );
      assertEquals([added.status, added.address_masked], ["pending", "t•••@example.test"]);
      await postToPoller(stack, "/rdap-poller/deliveries");
      const [confirmation] = await mailsTo(teamAddress);
      assert(confirmation, "a confirmation mail went to the team's address");
      const link =
        (await text(confirmation.ID)).match(/https?:\/\/\S+\/email-links\/confirm\?token=[0-9a-f]{48}/)![0];
      const confirmed = await fetch(link, { method: "POST" });
      assertEquals(await confirmed.json(), { status: "confirmed" });
      const [{ list }] = await asAccount(
        sql,
        member,
        (tx) =>
          tx<{ list: { channels: { status: string; address_masked: string }[] } }[]>`
          select public.list_organization_email_addresses(${org}) as list`,
      );
      assertEquals(list.channels.map((c) => [c.status, c.address_masked]), [["active", "t•••@example.test"]]);
      assert(!JSON.stringify(list).includes(teamAddress), "a member never reads the address");
    });

    await t.step(
      "a drop of a claimed name: one team mail naming the claimer, and each opted-in member's own",
      async () => {
        deleteMails();
        await sql`insert into public.domains (name, status, last_checked_at) values (${name}, 'pending_delete', now())`;
        for (const account of [admin, member]) {
          await asAccount(sql, account, async (tx) => {
            await tx`select public.set_organization_personal_alerts(${org}, true)`;
            await tx`select * from public.add_watchlist_domains(${[name]})`;
          });
        }
        await asAccount(
          sql,
          owner,
          (tx) => tx`select public.add_organization_watchlist_domains(${org}, ${[name]})`,
        );
        await asAccount(sql, member, (tx) => tx`select public.claim_organization_domain(${org}, ${name})`);
        await sql`update public.domains set status = 'available', last_checked_at = now() where name = ${name}`;
        await sleep(WINDOW_SECONDS * 1000 + 300);
        const run = await postToPoller(stack, "/rdap-poller/deliveries");
        assertEquals(run.email.mails_sent, 3, JSON.stringify(run.email));

        const [teamMail, ...moreTeam] = await mailsTo(teamAddress);
        assertEquals(moreTeam.length, 0, "exactly one mail to the team's address");
        assertEquals(teamMail.Subject, `${name} is available.`);
        const body = await text(teamMail.ID);
        assert(body.includes("Acme's list · claimed by Mia M."), body);
        assert(body.includes("alert channel of the organization Acme"), body);
        for (const account of [admin, member]) {
          const personal = await mailsTo(account.email);
          assertEquals(personal.length, 1, `one personal mail to ${account.email}`);
          assert(!(await text(personal[0].ID)).includes("claimed by"), "a personal alert reads as before");
        }
        assertEquals((await mailsTo(owner.email)).length, 0, "the owner did not opt in");
      },
    );

    await t.step("the team mail's one-click unsubscribe stops the team's address", async () => {
      const [teamMail] = await mailsTo(teamAddress);
      const response = await fetch(await unsubscribeLink(teamMail.ID), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      assertEquals(await response.json(), { status: "unsubscribed" });
      const [{ list }] = await asAccount(
        sql,
        admin,
        (tx) =>
          tx<{ list: { channels: { status: string; stopped_reason: string }[] } }[]>`
          select public.list_organization_email_addresses(${org}) as list`,
      );
      assertEquals([list.channels[0].status, list.channels[0].stopped_reason], ["stopped", "unsubscribed"]);
    });
  } finally {
    await stack.close();
    await mailbox.close();
    await smtp.close();
  }
});
