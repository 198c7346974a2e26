/**
 * Organizations' watchlists under concurrency (issue 42, docs/organizations.md): the organization's quota
 * (the owner's plan's watchlist size) holds when two members add at once, and two members claiming one name
 * at once get one claim: one wins, the other is told who has it (DW409 already_claimed). Each call runs in
 * its own transaction as the account, as the edge functions and PostgREST do.
 *
 * Needs SUPABASE_DB_URL (`deno task test` sets it).
 */
import * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { databaseUrl } from "../support/database.ts";
import { asAccount } from "../../scripts/lib/accounts.ts";

const options = { sanitizeResources: false, sanitizeOps: false };

type Sql = postgres.Sql;

function connect(): Sql {
  return postgres.connect(databaseUrl(), { max: 30, onnotice: () => {}, idle_timeout: 5 });
}

async function createAccount(sql: Sql, plan: string, label: string): Promise<string> {
  const email = `org-${label}-${crypto.randomUUID()}@test.local`;
  const [user] = await sql<{ id: string }[]>`
    insert into auth.users (email, email_confirmed_at) values (${email}, now()) returning id`;
  await sql`update public.profiles set plan_id = ${plan} where id = ${user.id}`;
  return user.id;
}

interface AddResult {
  added: number;
  skipped_duplicates: number;
  rejected_over_limit: number;
  remaining_quota: number;
}

Deno.test({
  name: "organization quota: 20 concurrent adds from two members never pass the owner's plan's quota",
  ...options,
  fn: async () => {
    const sql = connect();
    const run = crypto.randomUUID().slice(0, 8);
    const users: string[] = [];
    try {
      const owner = await createAccount(sql, "free", "owner");
      const first = await createAccount(sql, "pro", "first");
      const second = await createAccount(sql, "business", "second");
      users.push(owner, first, second);
      const [{ org }] = await asAccount(
        sql,
        owner,
        (tx) => tx<{ org: string }[]>`select public.create_organization('Race') as org`,
      );
      await sql`insert into public.organization_members (organization_id, user_id, role)
                values (${org}, ${first}, 'member'), (${org}, ${second}, 'admin')`;
      const [{ watchlist_quota: quota }] = await sql<{ watchlist_quota: number }[]>`
        select watchlist_quota from public.plans where id = 'free'`;
      // The members' own lists are untouched by the organization's quota.
      await asAccount(
        sql,
        first,
        (tx) => tx`select * from public.add_watchlist_domains(${[`own-${run}.test`]})`,
      );

      // 20 concurrent calls (10 per member), 3 new names each: 60 candidates for `quota` slots.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, call) => {
          const names = [0, 1, 2].map((i) => `org-race-${run}-${call}-${i}.test`);
          return asAccount(sql, call % 2 === 0 ? first : second, async (tx) => {
            const [result] = await tx<AddResult[]>`
              select * from public.add_organization_watchlist_domains(${org}, ${names}::text[])`;
            return result;
          });
        }),
      );
      const added = results.reduce((sum, r) => sum + r.added, 0);
      const rejected = results.reduce((sum, r) => sum + r.rejected_over_limit, 0);
      const [{ active }] = await sql<{ active: number }[]>`
        select count(*)::int as active from public.organization_watchlist_entries
         where organization_id = ${org} and deleted_at is null`;
      assertEquals(added, quota, "exactly the quota was added");
      assertEquals(rejected, 60 - quota, "every other name was rejected over the limit");
      assertEquals(active, quota, "the list holds exactly the quota");
      const [{ logged }] = await sql<{ logged: number }[]>`
        select count(*)::int as logged from public.organization_activity
         where organization_id = ${org} and action = 'name.added'`;
      assertEquals(logged, quota, "the log has one row per added name");
    } finally {
      if (users.length > 0) {
        await sql`delete from public.organizations where created_by = any(${users}::uuid[])`;
        await sql`delete from auth.users where id = any(${users}::uuid[])`;
      }
      await sql.end();
    }
  },
});

Deno.test({
  name: "claims: two members claiming one name at once get one claim; the other is told who has it",
  ...options,
  fn: async () => {
    const sql = connect();
    const run = crypto.randomUUID().slice(0, 8);
    const users: string[] = [];
    try {
      const owner = await createAccount(sql, "pro", "owner");
      const first = await createAccount(sql, "free", "first");
      const second = await createAccount(sql, "free", "second");
      users.push(owner, first, second);
      await sql`update public.profiles set display_name = 'First' where id = ${first}`;
      await sql`update public.profiles set display_name = 'Second' where id = ${second}`;
      const name = `claimed-${run}.test`;
      const [{ org }] = await asAccount(sql, owner, async (tx) => {
        const rows = await tx<{ org: string }[]>`select public.create_organization('Claims') as org`;
        await tx`select * from public.add_organization_watchlist_domains(${rows[0].org}, ${[name]}::text[])`;
        return rows;
      });
      await sql`insert into public.organization_members (organization_id, user_id, role)
                values (${org}, ${first}, 'member'), (${org}, ${second}, 'member')`;

      for (let round = 0; round < 5; round++) {
        // Both hold their transaction open until both have asked, so the claims really overlap.
        const outcomes = await Promise.all(
          [first, second].map((member) =>
            asAccount(sql, member, async (tx) => {
              try {
                const [{ claim }] = await tx<{ claim: { name: string } }[]>`
                select public.claim_organization_domain(${org}, ${name}) as claim`;
                await new Promise((resolve) => setTimeout(resolve, 50));
                return { won: claim.name };
              } catch (error) {
                const e = error as { code?: string; message?: string; detail?: string };
                return { code: e.code, message: e.message, detail: JSON.parse(e.detail ?? "{}") };
              }
            })
          ),
        );
        const winners = outcomes.filter((o) => "won" in o);
        const losers = outcomes.filter((o) => !("won" in o)) as {
          code: string;
          message: string;
          detail: { name: string };
        }[];
        assertEquals(winners.length, 1, `round ${round}: one member wins`);
        assertEquals(losers.length, 1, `round ${round}: the other loses`);
        const winner = (winners[0] as { won: string }).won;
        assertEquals(losers[0].code, "DW409");
        assert(losers[0].message.includes(`already_claimed: ${name} is already claimed by ${winner}`));
        assertEquals(losers[0].detail.name, winner, "the loser is told who has it");
        const [{ open }] = await sql<{ open: number }[]>`
          select count(*)::int as open from public.organization_claims where organization_id = ${org}`;
        assertEquals(open, 1, "one open claim");
        // Release for the next round (the owner may release anyone's claim).
        await asAccount(
          sql,
          owner,
          (tx) => tx`select public.release_organization_domain_claim(${org}, ${name})`,
        );
      }
    } finally {
      if (users.length > 0) {
        await sql`delete from public.organizations where created_by = any(${users}::uuid[])`;
        await sql`delete from auth.users where id = any(${users}::uuid[])`;
      }
      await sql.end();
    }
  },
});
