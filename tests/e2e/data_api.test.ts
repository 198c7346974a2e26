/**
 * The Data API stand-in (`/rest/v1` on the local gateway) driven by supabase-js itself, the version the app
 * uses (import_map.json), against the throwaway database: RPCs and table calls as an owner, as another
 * account and without a session; PostgREST's error shapes and statuses; hostile query strings that must
 * change nothing and leak nothing; CORS as a browser meets it. docs/runtime.md, "Data API stand-in".
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { SignJWT } from "jose";
import type { CreatedAccount } from "../../scripts/lib/accounts.ts";
import { signWithLocalKey } from "../../platform/auth/oauth/signing.ts";
import { localApiKeys, localPublishableKey, localSecretKey, sessionToken } from "../../platform/secrets.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

interface ErrorShape {
  code: string;
  message: string;
  details: string | null;
  hint: string | null;
}

Deno.test("Data API stand-in with supabase-js", options, async (t) => {
  const stack: TestStack = await startStack();
  const url = stack.gateway.url;
  const secret = Deno.env.get("AUTH_JWT_SECRET")!;
  const rest = `${url}/rest/v1`;

  const tokenFor = (account: CreatedAccount, expiresIn?: string) =>
    sessionToken({ id: account.user_id, email: account.email }, { secret, supabaseUrl: url, expiresIn });
  const client = (token?: string, key = localPublishableKey): SupabaseClient =>
    createClient(url, key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    });
  /** A raw request, as a browser or a hostile client would send it. */
  const raw = async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown; token?: string } = {},
  ) => {
    const headers = new Headers({ apikey: localPublishableKey, ...init.headers });
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    if (init.body !== undefined) headers.set("content-type", "application/json");
    const response = await fetch(`${rest}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  try {
    const owner = await stack.account("pro");
    const other = await stack.account("pro");
    const ownerDb = client(await tokenFor(owner));
    const otherDb = client(await tokenFor(other));
    const anonDb = client();
    const names = [0, 1, 2].map((index) => `data-api-${crypto.randomUUID().slice(0, 8)}-${index}.com`);

    await t.step("rpc: add_watchlist_domains and list_watchlist as the owner (POST and GET)", async () => {
      const added = await ownerDb.rpc("add_watchlist_domains", { p_domain_names: names });
      assertEquals(added.error, null);
      assertEquals(added.status, 200);
      assertEquals(added.data[0].added, 3);
      const listed = await ownerDb.rpc("list_watchlist", { p_limit: 10 });
      assertEquals(listed.error, null);
      assertEquals(
        (listed.data as { domain_name: string }[]).map((row) => row.domain_name).sort(),
        [...names].sort(),
      );
      // list_watchlist is STABLE: supabase-js may call it with GET and query arguments.
      const viaGet = await ownerDb.rpc("list_watchlist", { p_limit: 1 }, { get: true });
      assertEquals(viaGet.error, null);
      assertEquals(viaGet.data.length, 2, "list_watchlist answers limit + 1 rows (the next page's marker)");
      // Filters, order and count apply to a function's rows.
      const filtered = await ownerDb.rpc("list_watchlist", { p_limit: 10 }, { count: "exact" })
        .eq("domain_name", names[1]).select("domain_name,status");
      assertEquals(filtered.error, null);
      assertEquals(filtered.data, [{
        domain_name: names[1],
        status: (filtered.data as { status: string }[])[0].status,
      }]);
      assertEquals(filtered.count, 1);
    });

    await t.step("rpc: create_api_key returns the key once; a scalar function answers a scalar", async () => {
      const created = await ownerDb.rpc("create_api_key", { p_name: "from the app" }).single();
      assertEquals(created.error, null);
      assertMatch((created.data as { api_key: string }).api_key, /^dwl_/);
      const org = await ownerDb.rpc("create_organization", { p_name: "Data API Org" });
      assertEquals(org.error, null);
      assertMatch(org.data as string, /^[0-9a-f-]{36}$/);
    });

    await t.step("rpc: another account sees only its own rows; no session is refused by grants", async () => {
      const listed = await otherDb.rpc("list_watchlist", { p_limit: 10 });
      assertEquals(listed.error, null);
      assertEquals(listed.data, []);
      const anonymous = await anonDb.rpc("add_watchlist_domains", { p_domain_names: ["anon-example.com"] });
      assertEquals(anonymous.status, 401);
      assertEquals(anonymous.error?.code, "42501");
      assertMatch(anonymous.error!.message, /permission denied for function add_watchlist_domains/);
      const [{ count }] = await stack.sql<{ count: number }[]>`
        select count(*)::int as count from public.watchlist_entries where domain_name = 'anon-example.com'`;
      assertEquals(count, 0);
    });

    await t.step("each request runs as PostgREST runs it: role, claims, request.* settings", async () => {
      // A probe function made for this test only (dropped at the end), reporting what SQL sees.
      await stack.sql.unsafe(`
        create function public.data_api_test_probe(p_echo text default null) returns json
          language sql stable set search_path = '' as $probe$
          select json_build_object(
            'uid', auth.uid(), 'role', current_user, 'jwt_role', auth.jwt() ->> 'role',
            'email', auth.jwt() ->> 'email', 'method', current_setting('request.method', true),
            'path', current_setting('request.path', true),
            'client_info', current_setting('request.headers', true)::json ->> 'x-client-info',
            'authorization', (current_setting('request.headers', true)::json ->> 'authorization') is not null,
            'echo', p_echo, 'read_only', current_setting('transaction_read_only'),
            'statement_timeout', current_setting('statement_timeout'))
          $probe$;
        grant execute on function public.data_api_test_probe(text) to anon, authenticated;`);
      const asOwner = await ownerDb.rpc("data_api_test_probe", { p_echo: "hi" });
      assertEquals(asOwner.error, null);
      const seen = asOwner.data as Record<string, unknown>;
      assertEquals(seen.uid, owner.user_id);
      assertEquals(seen.role, "authenticated");
      assertEquals(seen.jwt_role, "authenticated");
      assertEquals(seen.email, owner.email);
      assertEquals(seen.method, "POST");
      assertEquals(seen.path, "/rpc/data_api_test_probe");
      assertMatch(String(seen.client_info), /^supabase-js/);
      assertEquals(seen.authorization, true);
      assertEquals(seen.echo, "hi");
      assertEquals(seen.read_only, "on", "a POST to a STABLE function runs read-only, as in PostgREST");
      assertEquals(seen.statement_timeout, "8s");
      const asAnon = await anonDb.rpc("data_api_test_probe", {}, { get: true });
      assertEquals((asAnon.data as Record<string, unknown>).role, "anon");
      assertEquals((asAnon.data as Record<string, unknown>).uid, null);
      assertEquals((asAnon.data as Record<string, unknown>).method, "GET");
      assertEquals((asAnon.data as Record<string, unknown>).statement_timeout, "3s");
      // A VOLATILE function that writes, called with GET, meets a read-only transaction: 25006, 405.
      const viaGet = await ownerDb.rpc("create_organization", { p_name: "Read only" }, { get: true });
      assertEquals(viaGet.status, 405);
      assertEquals(viaGet.error?.code, "25006");
    });

    await t.step("tables: select with filters, order, range and exact count", async () => {
      const plans = await ownerDb.from("plans").select("id, quota:watchlist_quota", { count: "exact" })
        .in("id", ["free", "pro", "business"]).gte("watchlist_quota", 10).order("sort_order", {
          ascending: false,
        })
        .range(0, 1);
      assertEquals(plans.error, null);
      assertEquals(plans.status, 206);
      assertEquals(plans.count, 3);
      assertEquals(plans.data, [{ id: "business", quota: 10000 }, { id: "pro", quota: 1000 }]);
      // `in` on uuid and bigint columns (the values are typed by the column), and an empty list.
      const profiles = await ownerDb.from("profiles").select("id").in("id", [owner.user_id, other.user_id]);
      assertEquals(profiles.data, [{ id: owner.user_id }], "RLS: only the caller's own profile");
      const none = await ownerDb.from("profiles").select("id").in("id", []);
      assertEquals([none.status, none.data], [200, []]);
      const [entry] = await stack.sql<{ id: string }[]>`
        select id::text from public.watchlist_entries where user_id = ${owner.user_id} limit 1`;
      const byId = await ownerDb.from("watchlist_entries").select("id").in("id", [Number(entry.id), 0]);
      assertEquals(byId.data, [{ id: Number(entry.id) }]);
      const byEq = await ownerDb.from("watchlist_entries").select("id").eq("id", Number(entry.id)).single();
      assertEquals(byEq.data, { id: Number(entry.id) });
      const likeAndNot = await ownerDb.from("plans").select("id").ilike("id", "PR*").not("id", "eq", "free");
      assertEquals(likeAndNot.data, [{ id: "pro" }]);
      const orFilter = await ownerDb.from("plans").select("id").or(
        "id.eq.free,and(id.eq.pro,api_access.is.true)",
      )
        .order("id");
      assertEquals(orFilter.data, [{ id: "free" }, { id: "pro" }]);
      const nulls = await ownerDb.from("plans").select("id").is("requests_per_day", null).order("id");
      assertEquals(nulls.data, [{ id: "enterprise" }, { id: "free" }]);
      const cast = await ownerDb.from("plans").select("id,watchlist_quota::text").eq("id", "free");
      assertEquals(cast.data, [{ id: "free", watchlist_quota: "10" }]);
      const limited = await ownerDb.from("plans").select("id").order("sort_order").limit(1).neq("id", "free");
      assertEquals(limited.data, [{ id: "pro" }]);
      // RLS: the watchlist rows of the owner only; none without a session (no grant to anon).
      const entries = await otherDb.from("watchlist_entries").select("domain_name").in("domain_name", names);
      assertEquals(entries.data, []);
      const own = await ownerDb.from("watchlist_entries").select("domain_name", {
        count: "exact",
        head: true,
      })
        .in("domain_name", names);
      assertEquals(own.count, 3);
      const anonymous = await anonDb.from("plans").select("id");
      assertEquals(anonymous.status, 401);
      assertEquals(anonymous.error?.code, "42501");
    });

    await t.step("tables: single and maybeSingle", async () => {
      const profile = await ownerDb.from("profiles").select("id,plan_id").eq("id", owner.user_id).single();
      assertEquals(profile.error, null);
      assertEquals(profile.data, { id: owner.user_id, plan_id: "pro" });
      const none = await otherDb.from("profiles").select("id").eq("id", owner.user_id).single();
      assertEquals(none.status, 406);
      assertEquals(none.error?.code, "PGRST116");
      assertEquals(none.error?.details, "The result contains 0 rows");
      const many = await ownerDb.from("plans").select("id").single();
      assertEquals(many.error?.code, "PGRST116");
      assertEquals(many.error?.details, "The result contains 4 rows");
      const maybe = await otherDb.from("profiles").select("id").eq("id", owner.user_id).maybeSingle();
      assertEquals(maybe.error, null);
      assertEquals(maybe.data, null);
    });

    await t.step("tables: insert, update and delete with return=representation under RLS", async () => {
      const org = (await ownerDb.rpc("create_organization", { p_name: "Invites Org" })).data as string;
      const email = uniqueEmail("invitee");
      const invited = await ownerDb.from("invitations").insert({
        organization_id: org,
        email,
        role: "member",
      })
        .select("id,email,status").single();
      assertEquals(invited.error, null);
      assertEquals(invited.status, 201);
      assertEquals((invited.data as { email: string }).email, email);
      const invitationId = (invited.data as { id: string }).id;
      // Another account may not invite into the owner's organization (RLS WITH CHECK: 403).
      const foreign = await otherDb.from("invitations").insert({
        organization_id: org,
        email: uniqueEmail("x"),
      });
      assertEquals(foreign.status, 403);
      assertEquals(foreign.error?.code, "42501");
      assertMatch(foreign.error!.message, /row-level security/);
      // A token column is never granted: asking for it is refused, not leaked.
      const token = await ownerDb.from("invitations").select("token").eq("id", invitationId);
      assertEquals(token.status, 403);
      assertEquals(token.data, null);
      const revoked = await ownerDb.from("invitations").update({ status: "revoked" }).eq("id", invitationId)
        .select("id,status");
      assertEquals(revoked.error, null);
      assertEquals(revoked.status, 200);
      assertEquals(revoked.data, [{ id: invitationId, status: "revoked" }]);
      const renamedByOther = await otherDb.from("organizations").update({ name: "Taken" }).eq("id", org)
        .select("id");
      assertEquals(renamedByOther.data, []);
      const renamed = await ownerDb.from("organizations").update({ name: "Renamed" }).eq("id", org)
        .select("id,name").single();
      assertEquals(renamed.data, { id: org, name: "Renamed" });
      const minimal = await ownerDb.from("organizations").update({ name: "Again" }).eq("id", org);
      assertEquals(minimal.status, 204);
      assertEquals(minimal.data, null);
      const deletedByOther = await otherDb.from("organizations").delete().eq("id", org).select("id");
      assertEquals(deletedByOther.data, []);
      const deleted = await ownerDb.from("organizations").delete({ count: "exact" }).eq("id", org).select(
        "id,name",
      );
      assertEquals(deleted.status, 200);
      assertEquals(deleted.data, [{ id: org, name: "Again" }]);
      assertEquals(deleted.count, 1);
      const unfiltered = await ownerDb.from("organizations").delete();
      assertEquals(unfiltered.status, 400);
      assertEquals(unfiltered.error?.code, "21000");
    });

    await t.step(
      "more of the surface: Range header, HEAD, stripped nulls, upsert, Preference-Applied",
      async () => {
        const ownerToken = await tokenFor(owner);
        const ranged = await raw("/plans?select=id&order=sort_order", {
          headers: { range: "1-2", "range-unit": "items", prefer: "count=exact" },
          token: ownerToken,
        });
        assertEquals(ranged.status, 206);
        assertEquals(ranged.body, [{ id: "pro" }, { id: "business" }]);
        assertEquals(ranged.headers.get("content-range"), "1-2/4");
        assertEquals(ranged.headers.get("preference-applied"), "count=exact");
        const head = await ownerDb.from("plans").select("*", { count: "exact", head: true });
        assertEquals([head.status, head.count, head.data], [200, 4, null]);
        const stripped = await ownerDb.from("plans").select("id,requests_per_day").eq("id", "free")
          .stripNulls();
        assertEquals(stripped.data, [{ id: "free" }]);
        const past = await raw("/plans?offset=10", { headers: { prefer: "count=exact" }, token: ownerToken });
        assertEquals([past.status, past.body.code], [416, "PGRST103"]);
        // Upsert as service_role (plans are written by the operator only), writing back the same values.
        const service = client(undefined, localSecretKey);
        const freePlan = {
          id: "free",
          api_access: false,
          watchlist_quota: 10,
          webhooks: false,
          sort_order: 10,
        };
        const merged = await service.from("plans").upsert(freePlan).select("id,sort_order");
        assertEquals(
          [merged.status, merged.data],
          [200, [{ id: "free", sort_order: 10 }]],
          "a merge that only updated is 200, as PostgREST answers",
        );
        const ignored = await service.from("plans").upsert({ ...freePlan, sort_order: 99 }, {
          ignoreDuplicates: true,
        })
          .select("id");
        assertEquals([ignored.status, ignored.data], [201, []]);
        const [free] = await stack.sql<
          { sort_order: number }[]
        >`select sort_order from public.plans where id = 'free'`;
        assertEquals(free.sort_order, 10);
      },
    );

    await t.step("errors: PostgREST's codes, statuses and shapes", async () => {
      const expect = (
        response: { status: number; body: ErrorShape },
        status: number,
        code: string,
        message?: RegExp,
      ) => {
        assertEquals(response.status, status, JSON.stringify(response.body));
        assertEquals(response.body.code, code);
        assertEquals(Object.keys(response.body).sort(), ["code", "details", "hint", "message"]);
        if (message) assertMatch(response.body.message, message);
      };
      const ownerToken = await tokenFor(owner);
      expect(await raw("/no_such_table", { token: ownerToken }), 404, "PGRST205", /public\.no_such_table/);
      expect(
        await raw("/rpc/no_such_function", { method: "POST", body: { a: 1 }, token: ownerToken }),
        404,
        "PGRST202",
        /Could not find the function public\.no_such_function\(a\)/,
      );
      expect(
        await raw("/rpc/list_watchlist", { method: "POST", body: { p_wrong: 1 }, token: ownerToken }),
        404,
        "PGRST202",
      );
      expect(
        await raw("/plans?select=nope", { token: ownerToken }),
        400,
        "42703",
        /column plans\.nope does not exist/,
      );
      expect(await raw("/plans?id=zz.free", { token: ownerToken }), 400, "PGRST100");
      expect(await raw("/plans?select=id,", { token: ownerToken }), 400, "PGRST100");
      expect(
        await raw("/plans", { headers: { "accept-profile": "private" }, token: ownerToken }),
        406,
        "PGRST106",
        /Invalid schema: private/,
      );
      expect(
        await raw("/rpc/list_watchlist", { method: "PATCH", body: {}, token: ownerToken }),
        405,
        "PGRST101",
      );
      expect(
        await raw("/plans", { headers: { accept: "application/xml" }, token: ownerToken }),
        406,
        "PGRST107",
      );
      expect(
        await raw("/invitations", { method: "POST", body: { nope: 1 }, token: ownerToken }),
        400,
        "PGRST204",
        /Could not find the 'nope' column of 'invitations' in the schema cache/,
      );
      expect(
        await raw("/invitations", {
          method: "POST",
          body: [{ email: "a@b.c" }, { role: "member" }],
          token: ownerToken,
        }),
        400,
        "PGRST102",
        /All object keys must match/,
      );
      const badJson = await fetch(`${rest}/invitations`, {
        method: "POST",
        headers: {
          apikey: localPublishableKey,
          authorization: `Bearer ${ownerToken}`,
          "content-type": "application/json",
        },
        body: "{not json",
      });
      assertEquals([badJson.status, (await badJson.json()).code], [400, "PGRST102"]);
      expect(await raw("/plans/extra", { token: ownerToken }), 404, "PGRST125");
      expect(
        await raw("/invitations", {
          method: "POST",
          body: { organization_id: crypto.randomUUID(), email: "a@b.c" },
          token: ownerToken,
        }),
        403,
        "42501",
      );
      expect(await raw("/profiles?id=eq.not-a-uuid", { token: ownerToken }), 400, "22P02");
      expect(
        await raw("/rpc/list_watchlist", { method: "POST", body: { p_limit: 0 }, token: ownerToken }),
        400,
        "DW400",
      );
      const expired = await raw("/plans", { token: await tokenFor(owner, "-1m") });
      expect(expired, 401, "PGRST303", /JWT expired/);
      assertMatch(expired.headers.get("www-authenticate") ?? "", /invalid_token/);
      const forged = await new SignJWT({ sub: owner.user_id, role: "authenticated" })
        .setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(
          new TextEncoder().encode("x".repeat(40)),
        );
      expect(await raw("/plans", { token: forged }), 401, "PGRST301");
      expect(await raw("/plans", { token: "not-a-jwt" }), 401, "PGRST301", /Expected 3 parts/);
      expect(
        await raw("/plans", { headers: { authorization: "Bearer " } }),
        401,
        "PGRST301",
        /Empty JWT is sent in Authorization header/,
      );
      // Another scheme is no token to PostgREST: the key's role (anon), which has no grant on plans.
      expect(await raw("/plans", { headers: { authorization: "Basic YTpi" } }), 401, "42501");
      const noKey = await fetch(`${rest}/plans`);
      assertEquals(noKey.status, 401);
      assertEquals((await noKey.json()).message, "No API key found in request");
      const badKey = await raw("/plans", { headers: { apikey: "sb_publishable_wrong" } });
      assertEquals(badKey.status, 401);
      assertEquals(badKey.body.message, "Invalid API key");
    });

    await t.step("identity: ES256 session tokens, legacy and new keys, service_role", async () => {
      const es256 = await signWithLocalKey({
        sub: owner.user_id,
        role: "authenticated",
        aud: "authenticated",
        email: owner.email,
      });
      const viaEs256 = await client(es256).from("profiles").select("id").eq("id", owner.user_id).single();
      assertEquals(viaEs256.data, { id: owner.user_id });
      // The legacy JWT keys the stack hands out (SUPABASE_ANON_KEY / SUPABASE_SERVICE_ROLE_KEY).
      const anonKey = Deno.env.get("SUPABASE_ANON_KEY")!;
      const serviceRoleKey = Deno.env.get("SUPABASE_SERVICE_ROLE_KEY")!;
      const foreignAnon = (await localApiKeys("y".repeat(40))).anonKey;
      const refusedKey = await client(undefined, foreignAnon).from("plans").select("id");
      assertEquals(refusedKey.status, 401);
      const legacyAnon = await client(undefined, anonKey).from("plans").select("id");
      assertEquals(legacyAnon.status, 401);
      const legacyUser = await client(await tokenFor(owner), anonKey).from("plans").select("id");
      assertEquals(legacyUser.data?.length, 4);
      const service = await client(undefined, localSecretKey).from("profiles").select("id").eq(
        "id",
        other.user_id,
      );
      assertEquals(service.data, [{ id: other.user_id }]);
      const legacyService = await client(undefined, serviceRoleKey).from("profiles").select("id")
        .eq("id", other.user_id);
      assertEquals(legacyService.data, [{ id: other.user_id }]);
      const privileged = await new SignJWT({ role: "postgres" }).setProtectedHeader({ alg: "HS256" })
        .setExpirationTime("1h").sign(new TextEncoder().encode(secret));
      const refused = await raw("/plans", { token: privileged });
      assertEquals(refused.status, 403);
      assertEquals(refused.body.code, "42501");
    });

    await t.step(
      "a session from the Auth stand-in (sign-up, ES256) reads and writes through the Data API",
      async () => {
        const app = client();
        const email = uniqueEmail("signup");
        const signedUp = await app.auth.signUp({ email, password: "correct-horse-1" });
        assertEquals(signedUp.error, null);
        assert(signedUp.data.session, "local sign-up needs no confirmation");
        const userId = signedUp.data.user!.id;
        const profile = await app.from("profiles").select("id,email,plan_id").single();
        assertEquals(profile.data, { id: userId, email, plan_id: "free" });
        const renamed = await app.from("profiles").update({ display_name: "Ada" }).eq("id", userId)
          .select("display_name").single();
        assertEquals(renamed.data, { display_name: "Ada" });
        const added = await app.rpc("add_watchlist_domains", {
          p_domain_names: [`signup-${userId.slice(0, 8)}.com`],
        });
        assertEquals(added.data?.[0]?.added, 1);
        await app.auth.signOut();
        const afterSignOut = await app.from("profiles").select("id");
        assertEquals(afterSignOut.status, 401, "signed out, the client is anonymous again");
      },
    );

    await t.step("hostile query strings change nothing and leak nothing", async () => {
      const ownerToken = await tokenFor(owner);
      const before = await stack.sql<{ count: number }[]>`select count(*)::int as count from public.profiles`;
      const attempts = [
        "/profiles?select=*,password",
        "/profiles?select=id,encrypted_password",
        `/profiles?select=${encodeURIComponent('"id; drop table public.plans; --"')}`,
        `/profiles?id=eq.${encodeURIComponent("1; drop table public.plans; --")}`,
        `/profiles?or=${encodeURIComponent("(id.eq.1,id.neq.1);delete from public.profiles")}`,
        `/profiles?or=${encodeURIComponent("(id.not.is.null)")}&select=email`,
        `/profiles?order=${encodeURIComponent("id;drop table public.plans")}`,
        `/${encodeURIComponent('plans"; drop table public.plans; --')}`,
        "/rpc/private.current_account_id",
        "/plans%zz",
        `/rpc/${encodeURIComponent("pg_sleep")}?seconds=1`,
      ];
      for (const path of attempts) {
        const response = await raw(path, { token: ownerToken });
        const text = JSON.stringify(response.body);
        assert(!text.includes(other.email), `${path} leaked another account's email`);
        assert(!/encrypted_password|\$2[aby]\$/.test(text) || response.status >= 400, `${path} leaked`);
        if (path.includes("or=") && path.includes("select=email")) {
          // RLS still decides: only the caller's own profile comes back.
          assertEquals(response.body, [{ email: owner.email }]);
        } else {
          assert(response.status >= 400, `${path} answered ${response.status}`);
          assert(typeof response.body.code === "string", `${path}: ${text}`);
        }
      }
      const viaPrivate = await raw("/rpc/current_account_id", {
        method: "POST",
        body: {},
        headers: { "content-profile": "private" },
        token: ownerToken,
      });
      assertEquals(viaPrivate.status, 406);
      assertEquals(viaPrivate.body.code, "PGRST106");
      const [plans] = await stack.sql<{ count: number }[]>`select count(*)::int as count from public.plans`;
      assertEquals(plans.count, 4);
      const after = await stack.sql<{ count: number }[]>`select count(*)::int as count from public.profiles`;
      assertEquals(after[0].count, before[0].count);
    });

    await t.step("CORS: a browser's preflight and the exposed headers", async () => {
      const preflight = await fetch(`${rest}/plans?select=id`, {
        method: "OPTIONS",
        headers: {
          origin: "http://localhost:3000",
          "access-control-request-method": "GET",
          "access-control-request-headers":
            "apikey, authorization, x-client-info, prefer, range, accept-profile",
        },
      });
      await preflight.body?.cancel();
      assertEquals(preflight.status, 200);
      assertEquals(preflight.headers.get("access-control-allow-origin"), "*");
      assertMatch(preflight.headers.get("access-control-allow-headers") ?? "", /apikey/);
      assertMatch(preflight.headers.get("access-control-allow-methods") ?? "", /PATCH/);
      const actual = await raw("/plans?select=id", {
        headers: { origin: "http://localhost:3000", prefer: "count=exact" },
        token: await tokenFor(owner),
      });
      assertEquals(actual.headers.get("access-control-allow-origin"), "*");
      assertMatch(actual.headers.get("access-control-expose-headers") ?? "", /Content-Range/);
      assertEquals(actual.headers.get("content-range"), "0-3/4");
    });
  } finally {
    await stack.sql`drop function if exists public.data_api_test_probe(text)`;
    await stack.close();
  }
});
