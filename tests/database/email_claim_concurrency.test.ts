/**
 * The email digest claim under concurrency: parallel delivery runs claiming (`private.claim_email_mails`)
 * while new events keep arriving, and settling what they claim. Every delivery is sent in exactly one mail,
 * no address ever has two mails in flight, and each mail holds only its own address's deliveries. Runs
 * against SUPABASE_DB_URL (set by `deno task test`); creates its own accounts and, when it meets other
 * files' email deliveries, gives them back untouched.
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";

const options = { sanitizeResources: false, sanitizeOps: false };
const ACCOUNTS = 6;
const EVENTS_PER_ACCOUNT = 12;
const RUNS = 6;

interface ClaimRow {
  mail_id: string;
  delivery_id: string;
  email_address_id: string | null;
}

Deno.test(
  "parallel email claims: each delivery in exactly one mail, one mail in flight per address",
  options,
  async () => {
    const sql = postgres.connect(databaseUrl(), { max: RUNS + 2, onnotice: () => {} });
    try {
      const addresses: string[] = [];
      const users: string[] = [];
      for (let i = 0; i < ACCOUNTS; i++) {
        const [user] = await sql<{ id: string }[]>`
        insert into auth.users (email, email_confirmed_at) values (${`claim-${crypto.randomUUID()}@test.local`}, now())
        returning id`;
        const [address] = await sql<{ id: string }[]>`
        select id from public.email_addresses where user_id = ${user.id} and is_account`;
        users.push(user.id);
        addresses.push(address.id);
      }
      const mine = new Set(addresses);
      const queueOne = async (account: number) => {
        await sql`
        with ev as (
          insert into public.alert_events (user_id, type, domain_name, status, checked_at)
          values (${users[account]}, 'domain.available', ${`c-${
          crypto.randomUUID().slice(0, 8)
        }.test`}, 'available', now())
          returning id, user_id
        )
        insert into public.alert_deliveries (event_id, user_id, channel, email_address_id)
        select id, user_id, 'email', ${addresses[account]}::uuid from ev`;
      };

      const sentIn = new Map<string, string>(); // delivery → mail
      const inFlight = new Set<string>(); // addresses with a mail being "sent"
      const violations: string[] = [];
      let producing = true;

      const producer = (async () => {
        for (let round = 0; round < EVENTS_PER_ACCOUNT; round++) {
          await Promise.all(users.map((_, account) => queueOne(account)));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        producing = false;
      })();

      const run = async () => {
        let idle = 0;
        while (producing || idle < 5) {
          const rows = await sql<ClaimRow[]>`
          select mail_id, delivery_id, email_address_id from private.claim_email_mails(3, 60, 0, 5)`;
          if (rows.length === 0) {
            idle++;
            await new Promise((resolve) => setTimeout(resolve, 10));
            continue;
          }
          idle = 0;
          const mails = new Map<string, ClaimRow[]>();
          for (const row of rows) mails.set(row.mail_id, [...(mails.get(row.mail_id) ?? []), row]);
          await Promise.all([...mails.values()].map(async (mail) => {
            const address = mail[0].email_address_id;
            const ids = mail.map((row) => row.delivery_id);
            if (address === null || !mine.has(address)) {
              for (const id of ids) await sql`select private.defer_alert_delivery(${id}, now())`;
              return;
            }
            if (mail.some((row) => row.email_address_id !== address)) {
              violations.push(`mixed mail ${mail[0].mail_id}`);
            }
            if (inFlight.has(address)) violations.push(`two mails in flight for ${address}`);
            inFlight.add(address);
            for (const id of ids) {
              if (sentIn.has(id)) violations.push(`delivery ${id} in two mails`);
              sentIn.set(id, mail[0].mail_id);
            }
            await new Promise((resolve) => setTimeout(resolve, 3));
            inFlight.delete(address);
            await sql`select private.settle_email_mail(${ids}::uuid[], 'delivered', 250, null, 3, null, false)`;
          }));
        }
      };

      await Promise.all([producer, ...Array.from({ length: RUNS }, run)]);
      assertEquals(violations, []);
      const [left] = await sql<{ pending: number; delivered: number }[]>`
      select count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where status = 'delivered')::int as delivered
        from public.alert_deliveries where email_address_id = any(${addresses}::uuid[])`;
      assertEquals(left.pending, 0, "nothing left behind");
      assertEquals(left.delivered, ACCOUNTS * EVENTS_PER_ACCOUNT);
      assertEquals(sentIn.size, ACCOUNTS * EVENTS_PER_ACCOUNT, "each delivery sent once");
      const mails = new Set(sentIn.values()).size;
      console.log(`${sentIn.size} events went out in ${mails} mails over ${RUNS} parallel runs`);
      assert(
        mails < sentIn.size,
        `events were gathered into digests (${mails} mails for ${sentIn.size} events)`,
      );
      await sql`delete from auth.users where id = any(${users}::uuid[])`;
    } finally {
      await sql.end({ timeout: 2 });
    }
  },
);
