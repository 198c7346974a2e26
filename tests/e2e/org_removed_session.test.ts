/**
 * A removed member's open session loses access to the organization at once (issue 42, docs/organizations.md
 * "Who may do what"): the same session JWT, used through supabase-js on the Data API before and after the
 * removal, reads the organization's list, claims and log before and nothing after; the organization
 * functions answer 404 (DW404) to it. Nothing about organizations is in the token.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { localPublishableKey, sessionToken } from "../../platform/secrets.ts";
import { assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

Deno.test("a removed member's open session loses access to the organization at once", options, async () => {
  const stack = await startStack();
  try {
    const url = stack.gateway.url;
    const secret = Deno.env.get("AUTH_JWT_SECRET")!;
    const tokenFor = (account: CreatedAccount) =>
      sessionToken({ id: account.user_id, email: account.email }, { secret, supabaseUrl: url });
    const client = (token: string): SupabaseClient =>
      createClient(url, localPublishableKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        global: { headers: { Authorization: `Bearer ${token}` } },
      });
    const owner = await stack.account("pro");
    const member = await stack.account("free");
    const [{ org }] = await asAccount(stack.sql, owner.user_id, async (tx) => {
      const rows = await tx<{ org: string }[]>`select public.create_organization('Acme') as org`;
      await tx`select * from public.add_organization_watchlist_domains(${rows[0].org}, ${[
        "shared.com",
      ]}::text[])`;
      return rows;
    });
    await stack.sql`insert into public.organization_members (organization_id, user_id, role)
                    values (${org}, ${member.user_id}, 'member')`;

    const session = client(await tokenFor(member)); // the member's open session: one token throughout
    const read = async () => ({
      entries: (await session.from("organization_watchlist_entries").select("domain_name")).data?.length,
      log: (await session.from("organization_activity").select("id")).data?.length ?? 0,
      page: (await session.rpc("organization_watchlist_page", { p_organization_id: org })).error?.code ??
        "ok",
      claim: (await session.rpc("claim_organization_domain", {
        p_organization_id: org,
        p_domain_name: "shared.com",
      }))
        .error?.code ?? "ok",
    });
    const before = await read();
    assertEquals([before.entries, before.page, before.claim], [1, "ok", "ok"]);

    const ownerSession = client(await tokenFor(owner));
    const removed = await ownerSession.from("organization_members").delete().eq("organization_id", org)
      .eq("user_id", member.user_id);
    assertEquals(removed.error, null);

    const after = await read();
    assertEquals(after, { entries: 0, log: 0, page: "DW404", claim: "DW404" });
    const [{ open }] = await stack.sql<{ open: number }[]>`
      select count(*)::int as open from public.organization_claims where organization_id = ${org}`;
    assertEquals(open, 0, "the removal released the member's claim");
  } finally {
    await stack.close();
  }
});
