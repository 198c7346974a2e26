/**
 * The account session endpoints end to end: the real gateway and database, with a local fake of Supabase
 * Auth (ES256 JWKS, admin invite endpoint) standing in for the real one.
 */
import { exportSPKI, UnsecuredJWT } from "jose";
import { asAccount, type CreatedAccount } from "../../scripts/lib/accounts.ts";
import { localSecretKey, sessionToken } from "../../platform/secrets.ts";
import { type FakeAuth, startFakeAuth } from "../fakes/auth_server.ts";
import { assert, assertEquals, assertFalse, assertMatch } from "../support/assert.ts";
import { call, type JsonResponse } from "../support/http.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const appUrl = "https://app.example.test";
const appOrigin = "https://app.example.test";
const tenMinutesMs = 10 * 60 * 1000;

interface Org {
  id: string;
  owner: CreatedAccount;
}

Deno.test("account session endpoints end to end", options, async (t) => {
  const fake: FakeAuth = await startFakeAuth();
  fake.siteUrl = appUrl;
  const savedEnvironment = Object.fromEntries(
    ["AUTH_BASE_URL", "APP_URL", "APP_ORIGINS", "SUPABASE_JWKS"].map((name) => [name, Deno.env.get(name)]),
  );
  Deno.env.delete("SUPABASE_JWKS");
  Deno.env.delete("APP_ORIGINS");
  const stack: TestStack = await startStack({ AUTH_BASE_URL: fake.url, APP_URL: appUrl });
  const jwtSecret = Deno.env.get("AUTH_JWT_SECRET")!;
  const exportUrl = `${stack.functionsBase}/export-account`;
  const inviteUrl = `${stack.functionsBase}/send-org-invite`;

  const tokenFor = (account: CreatedAccount) => fake.sign({ sub: account.user_id, email: account.email });
  const hs256TokenFor = (account: CreatedAccount) =>
    fake.sign({ sub: account.user_id, email: account.email }, {
      alg: "HS256",
      key: new TextEncoder().encode(jwtSecret),
    });

  const post = async <T = Record<string, unknown>>(
    url: string,
    init: { token?: string; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse<T>> => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    return await call<T>(url, { method: "POST", headers, json: init.json });
  };

  const sendInvite = async (account: CreatedAccount, invitationId: unknown) =>
    post(inviteUrl, { token: await tokenFor(account), json: { invitationId } });

  /** Runs SQL as the account, the way the functions do (role authenticated, the account's claims). */
  const asUser = <T>(userId: string, work: (tx: typeof stack.sql) => Promise<T>): Promise<T> =>
    asAccount(stack.sql, userId, (tx) => work(tx as unknown as typeof stack.sql));

  const newOrg = async (name = "Acme"): Promise<Org> => {
    const owner = await stack.account("pro");
    const [row] = await asUser(
      owner.user_id,
      (tx) => tx<{ id: string }[]>`select public.create_organization(${name}) as id`,
    );
    return { id: row.id, owner };
  };

  const addMember = async (org: Org, role: "admin" | "member"): Promise<CreatedAccount> => {
    const account = await stack.account("free");
    await stack.sql`insert into public.organization_members (organization_id, user_id, role)
                    values (${org.id}, ${account.user_id}, ${role})`;
    return account;
  };

  const newInvitation = async (
    org: Org,
    fields: { email?: string; status?: string; expired?: boolean } = {},
  ): Promise<{ id: string; token: string; email: string }> => {
    const email = fields.email ?? uniqueEmail("invitee");
    const [row] = await stack.sql<{ id: string; token: string }[]>`
      insert into public.invitations (organization_id, email, role, invited_by, status, expires_at)
      values (${org.id}, ${email}, 'member', ${org.owner.user_id}, ${fields.status ?? "pending"},
              now() + ${fields.expired ? "-1 hour" : "7 days"}::interval)
      returning id, token`;
    return { ...row, email };
  };

  const invitationRow = async (id: string) => {
    const [row] = await stack.sql<{ status: string; emailed_at: Date | null }[]>`
      select status, emailed_at from public.invitations where id = ${id}`;
    return row;
  };

  try {
    await t.step("without a token both endpoints answer 401 JSON", async () => {
      for (const url of [exportUrl, inviteUrl]) {
        const response = await post(url, { json: { invitationId: crypto.randomUUID() } });
        assertEquals(response.status, 401, url);
        assertEquals(response.body.error, "unauthorized");
        assert(typeof response.body.message === "string");
        assertEquals(response.headers.get("www-authenticate"), "Bearer");
        const basic = await post(url, { headers: { authorization: "Basic dXNlcjpwdw==" } });
        assertEquals(basic.status, 401, `${url} with Basic auth`);
      }
    });

    await t.step("an ES256 token from the Auth JWKS works on both endpoints", async () => {
      const account = await stack.account("pro");
      const exported = await post(exportUrl, { token: await tokenFor(account) });
      assertEquals(exported.status, 200);
      assertEquals((exported.body.profile as Record<string, unknown>).id, account.user_id);
      const invite = await sendInvite(account, crypto.randomUUID());
      assertEquals(invite.status, 404, "authenticated, then the unknown invitation is a 404");
    });

    await t.step("an HS256 token works with AUTH_JWT_SECRET and is a 401 without it", async () => {
      const account = await stack.account("free");
      const token = await hs256TokenFor(account);
      assertEquals((await post(exportUrl, { token })).status, 200);
      Deno.env.delete("AUTH_JWT_SECRET");
      try {
        const refused = await post(exportUrl, { token });
        assertEquals(refused.status, 401);
        assertEquals(refused.body.error, "unauthorized");
      } finally {
        Deno.env.set("AUTH_JWT_SECRET", jwtSecret);
      }
    });

    await t.step("forged, expired and foreign tokens are 401 on both endpoints", async () => {
      const account = await stack.account("pro");
      const claims = { sub: account.user_id, email: account.email };
      const publicPem = new TextEncoder().encode(await exportSPKI(fake.publicKey));
      const attacks: Record<string, string> = {
        "alg none": new UnsecuredJWT({ ...claims, role: "authenticated" })
          .setIssuer(fake.issuer).setAudience("authenticated").setExpirationTime("1h").encode(),
        "HS256 signed with the public key": await fake.sign(claims, { alg: "HS256", key: publicPem }),
        "HS256 with a wrong secret": await fake.sign(claims, {
          alg: "HS256",
          key: new TextEncoder().encode(`${jwtSecret}-wrong`),
        }),
        "expired": await fake.sign(claims, { expiresAt: Math.floor(Date.now() / 1000) - 120 }),
        "wrong issuer": await fake.sign(claims, { issuer: "https://attacker.example/auth/v1" }),
        "wrong audience": await fake.sign(claims, { audience: "anon" }),
        "foreign key": await fake.sign(claims, {
          key: (await crypto.subtle.generateKey(
            { name: "ECDSA", namedCurve: "P-256" },
            false,
            ["sign", "verify"],
          )).privateKey,
        }),
      };
      for (const [label, token] of Object.entries(attacks)) {
        for (const url of [exportUrl, inviteUrl]) {
          const response = await post(url, { token, json: { invitationId: crypto.randomUUID() } });
          assertEquals(response.status, 401, `${label} at ${url}`);
          assertEquals(response.body.error, "unauthorized", label);
        }
      }
      const [counted] = await stack.sql<{ count: number }[]>`
        select count(*)::int as count from public.session_request_log where user_id = ${account.user_id}`;
      assertEquals(counted.count, 0, "refused tokens count nothing");
    });

    await t.step("a valid token of a deleted account is 401", async () => {
      const account = await stack.account("free");
      const token = await tokenFor(account);
      await stack.sql`delete from auth.users where id = ${account.user_id}`;
      for (const url of [exportUrl, inviteUrl]) {
        const response = await post(url, { token, json: { invitationId: crypto.randomUUID() } });
        assertEquals(response.status, 401, url);
        assertEquals(response.body.error, "unauthorized");
      }
    });

    await t.step(
      "CORS: preflights from the app origin are answered, other origins get no CORS headers",
      async () => {
        for (const url of [exportUrl, inviteUrl]) {
          const preflight = await fetch(url, {
            method: "OPTIONS",
            headers: {
              origin: appOrigin,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, x-client-info, apikey, content-type",
            },
          });
          await preflight.body?.cancel();
          assertEquals(preflight.status, 204, url);
          assertEquals(preflight.headers.get("access-control-allow-origin"), appOrigin);
          assertEquals(preflight.headers.get("access-control-allow-methods"), "POST, OPTIONS");
          assertEquals(
            preflight.headers.get("access-control-allow-headers"),
            "authorization, x-client-info, apikey, content-type",
          );
          assert(Number(preflight.headers.get("access-control-max-age")) > 0);
          assertMatch(preflight.headers.get("vary") ?? "", /origin/i);

          const denied = await fetch(url, {
            method: "OPTIONS",
            headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
          });
          await denied.body?.cancel();
          assertEquals(denied.status, 403);
          assertEquals(denied.headers.get("access-control-allow-origin"), null);
          assertEquals(denied.headers.get("access-control-allow-headers"), null);
        }

        const account = await stack.account("free");
        const allowed = await post(exportUrl, {
          token: await tokenFor(account),
          headers: { origin: appOrigin },
        });
        assertEquals(allowed.status, 200);
        assertEquals(allowed.headers.get("access-control-allow-origin"), appOrigin);
        assertMatch(allowed.headers.get("access-control-expose-headers") ?? "", /Content-Disposition/);
        const unauthorized = await post(inviteUrl, { headers: { origin: appOrigin } });
        assertEquals(unauthorized.status, 401);
        assertEquals(
          unauthorized.headers.get("access-control-allow-origin"),
          appOrigin,
          "errors carry CORS too",
        );
        const foreign = await post(inviteUrl, { headers: { origin: "https://evil.example" } });
        assertEquals(foreign.headers.get("access-control-allow-origin"), null);
      },
    );

    await t.step("unsupported methods are 405 JSON", async () => {
      for (const url of [exportUrl, inviteUrl]) {
        const response = await call(url, { method: "GET" });
        assertEquals(response.status, 405, url);
        assertEquals(response.body.error, "method_not_allowed");
        assertEquals(response.headers.get("allow"), "POST, OPTIONS");
      }
    });

    await t.step("export-account: the whole account as an attachment, without any secret", async () => {
      const account = await stack.account("pro");
      const uid = account.user_id;
      const [key] = await stack.sql<{ prefix: string; key_hash: string }[]>`
        select prefix, key_hash from public.api_keys where user_id = ${uid}`;
      const webhookUrl = `https://hooks.example.test/${crypto.randomUUID()}`;
      const webhookSecret = `whsec-${crypto.randomUUID()}`;
      const telegramChatId = `${1 + Math.floor(Math.random() * 1e12)}`;
      await stack.sql`insert into public.domains (name) values ('export-one.com'), ('export-two.com')
                      on conflict do nothing`;
      await stack
        .sql`insert into public.watchlist_entries (user_id, domain_name) values (${uid}, 'export-one.com')`;
      await stack.sql`insert into public.watchlist_entries (user_id, domain_name, deleted_at)
                      values (${uid}, 'export-two.com', now())`;
      await stack.sql`insert into public.notification_settings (user_id, telegram_chat_id, telegram_linked_at)
                      values (${uid}, ${telegramChatId}, now())`;
      await stack.sql`insert into public.webhook_endpoints (user_id, url, secret, description)
                      values (${uid}, ${webhookUrl}, ${webhookSecret}, 'alerts')`;
      const [org] = await asUser(
        uid,
        (tx) => tx<{ id: string }[]>`select public.create_organization('Export Org') as id`,
      );
      const invitation = await newInvitation({ id: org.id, owner: account });

      const response = await fetch(exportUrl, {
        method: "POST",
        headers: { authorization: `Bearer ${await tokenFor(account)}` },
      });
      const text = await response.text();
      assertEquals(response.status, 200);
      assertMatch(response.headers.get("content-type") ?? "", /^application\/json/);
      const today = new Date().toISOString().slice(0, 10);
      assertEquals(
        response.headers.get("content-disposition"),
        `attachment; filename="domain-watchlist-export-${today}.json"`,
      );

      const document = JSON.parse(text);
      assertEquals(document.format_version, 1);
      assert(Math.abs(Date.parse(document.exported_at) - Date.now()) < 60_000, "exported_at is now");
      assertEquals(document.profile.id, uid);
      assertEquals(document.profile.email, account.email);
      assertEquals(document.profile.plan, "pro");
      assertEquals(document.watchlist.map((entry: { domain_name: string }) => entry.domain_name), [
        "export-one.com",
        "export-two.com",
      ]);
      assertEquals(document.notification_preferences, {
        telegram_configured: true,
        telegram_enabled: true,
        telegram_event_types: ["domain.available"],
        telegram_expiring_days: [30, 7, 1],
      });
      assertEquals(document.webhooks[0].kind, "generic");
      assertEquals(document.webhooks[0].event_types, ["domain.available"]);
      assertEquals(document.webhooks[0].expiring_days, [30, 7, 1]);
      assertEquals(document.organization_memberships.length, 1);
      assertEquals(document.organization_memberships[0].organization_id, org.id);
      assertEquals(document.organization_memberships[0].role, "owner");
      assertEquals(document.invitations_sent.length, 1);
      assertEquals(document.invitations_sent[0].id, invitation.id);
      assertEquals(document.invitations_sent[0].email, invitation.email);

      const secrets = {
        "API key": account.api_key!,
        "API key hash": key.key_hash,
        "API key prefix": key.prefix,
        "webhook URL": webhookUrl,
        "webhook secret": webhookSecret,
        "Telegram chat ID": telegramChatId,
        "invitation token": invitation.token,
      };
      for (const [label, value] of Object.entries(secrets)) {
        assertFalse(text.includes(value), `the export contains the ${label}`);
      }
    });

    await t.step("export-account: the 4th export within 10 minutes is 429 with reset_at", async () => {
      const account = await stack.account("free");
      const token = await tokenFor(account);
      for (let i = 1; i <= 3; i++) {
        const response = await post(exportUrl, { token });
        assertEquals(response.status, 200, `export ${i}`);
        assertEquals(response.headers.get("ratelimit-remaining"), String(3 - i));
      }
      const started = Date.now();
      const limited = await post(exportUrl, { token });
      assertEquals(limited.status, 429);
      assertEquals(limited.body.error, "rate_limited");
      const resetAt = limited.body.reset_at as string;
      assertMatch(resetAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert(Date.parse(resetAt) > started && Date.parse(resetAt) <= started + tenMinutesMs + 1000, resetAt);
      const retryAfter = Number(limited.headers.get("retry-after"));
      assert(retryAfter > 0 && retryAfter <= 600, `Retry-After ${retryAfter}`);
      // Another account is not affected.
      assertEquals(
        (await post(exportUrl, { token: await tokenFor(await stack.account("free")) })).status,
        200,
      );
    });

    await t.step(
      "send-org-invite: the owner sends; Auth gets the accept link; emailed_at is set",
      async () => {
        const org = await newOrg();
        const invitation = await newInvitation(org);
        fake.inviteAnswer = "ok";
        fake.invites.length = 0;
        const response = await sendInvite(org.owner, invitation.id);
        assertEquals(response.status, 200);
        assertEquals(response.body, { sent: true });
        assertEquals(fake.invites.length, 1);
        const [recorded] = fake.invites;
        // The new secret key (SUPABASE_SECRET_KEYS), as hosted injects it beside the legacy one.
        assertEquals(recorded.authorization, `Bearer ${localSecretKey}`);
        assertEquals(recorded.redirectTo, `${appUrl}/accept-invite?token=${invitation.token}`);
        assertEquals(
          recorded.sentRedirect,
          recorded.redirectTo,
          "Auth honours the redirect: the token arrives",
        );
        assertEquals(recorded.body.email, invitation.email);
        assertEquals(recorded.body.data, { organization_id: org.id, invitation_id: invitation.id });
        const row = await invitationRow(invitation.id);
        assertEquals(row.status, "pending");
        assert(row.emailed_at !== null, "emailed_at is recorded");
      },
    );

    await t.step("send-org-invite: an admin may send too", async () => {
      const org = await newOrg();
      const admin = await addMember(org, "admin");
      const invitation = await newInvitation(org);
      fake.inviteAnswer = "ok";
      const response = await sendInvite(admin, invitation.id);
      assertEquals(response.body, { sent: true });
      assert((await invitationRow(invitation.id)).emailed_at !== null);
    });

    await t.step(
      "send-org-invite: a member is 403; outsiders and unsendable invitations are 404",
      async () => {
        const org = await newOrg();
        const invitation = await newInvitation(org);
        fake.invites.length = 0;

        const member = await addMember(org, "member");
        const forbidden = await sendInvite(member, invitation.id);
        assertEquals(forbidden.status, 403);
        assertEquals(forbidden.body.error, "forbidden");

        const otherOrg = await newOrg("Other");
        const foreign = await sendInvite(otherOrg.owner, invitation.id);
        const unknown = await sendInvite(otherOrg.owner, crypto.randomUUID());
        assertEquals(foreign.status, 404);
        assertEquals(foreign.body.error, "not_found");
        assertEquals(
          foreign.body,
          unknown.body,
          "another organisation's invitation looks like an unknown id",
        );

        for (const fields of [{ status: "accepted" }, { status: "revoked" }, { expired: true }]) {
          const unsendable = await newInvitation(org, fields);
          const response = await sendInvite(org.owner, unsendable.id);
          assertEquals(response.status, 404, JSON.stringify(fields));
          assertEquals(response.body, unknown.body);
        }
        assertEquals(fake.invites.length, 0, "Auth was never asked");
        assertEquals((await invitationRow(invitation.id)).emailed_at, null);
      },
    );

    await t.step("send-org-invite: a malformed id or body is 400", async () => {
      const org = await newOrg();
      const token = await tokenFor(org.owner);
      for (const json of [{ invitationId: "not-a-uuid" }, {}, { invitationId: 42 }, []]) {
        const response = await post(inviteUrl, { token, json });
        assertEquals(response.status, 400, JSON.stringify(json));
        assertEquals(response.body.error, "invalid_request");
      }
    });

    await t.step("send-org-invite: a registered address is existing_account, nothing changes", async () => {
      const org = await newOrg();
      const invitation = await newInvitation(org);
      fake.inviteAnswer = "email_exists";
      const response = await sendInvite(org.owner, invitation.id);
      assertEquals(response.status, 200);
      assertEquals(response.body, { sent: false, reason: "existing_account" });
      assertEquals(await invitationRow(invitation.id), { status: "pending", emailed_at: null });
      // The probe used the allowance as a sent mail does.
      const [log] = await stack.sql<{ count: number }[]>`
        select count(*)::int as count from public.invite_mail_log where user_id = ${org.owner.user_id}`;
      assertEquals(log.count, 1, "the existing_account answer keeps its mail reservation");
    });

    await t.step(
      "send-org-invite: a redirect Auth would not honour is send_failed and nothing is sent",
      async () => {
        const org = await newOrg();
        const invitation = await newInvitation(org);
        fake.inviteAnswer = "ok";
        fake.siteUrl = "https://marketing.example.test";
        fake.invites.length = 0;
        fake.links.length = 0;
        try {
          const refused = await sendInvite(org.owner, invitation.id);
          assertEquals(refused.status, 200);
          assertEquals(refused.body, { sent: false, reason: "send_failed" });
          assertEquals(fake.links.length, 1, "Auth was asked which redirect it would use");
          assertEquals(fake.invites.length, 0, "no email went out with the token lost");
          assertEquals(await invitationRow(invitation.id), { status: "pending", emailed_at: null });

          fake.redirectAllowList = [`${appUrl}/accept-invite**`];
          const allowed = await sendInvite(org.owner, invitation.id);
          assertEquals(allowed.body, { sent: true }, "with <APP_URL>/accept-invite** on the allow list");
          assertEquals(
            fake.invites.at(-1)!.sentRedirect,
            `${appUrl}/accept-invite?token=${invitation.token}`,
          );
        } finally {
          fake.siteUrl = appUrl;
          fake.redirectAllowList = [];
        }
      },
    );

    await t.step("send-org-invite: an Auth failure is send_failed, nothing changes", async () => {
      const org = await newOrg();
      const invitation = await newInvitation(org);
      fake.inviteAnswer = "error";
      const response = await sendInvite(org.owner, invitation.id);
      assertEquals(response.status, 200);
      assertEquals(response.body, { sent: false, reason: "send_failed" });
      assertEquals(await invitationRow(invitation.id), { status: "pending", emailed_at: null });
      fake.inviteAnswer = "ok";
    });

    await t.step("send-org-invite: the 6th request within 10 minutes is 429 with reset_at", async () => {
      const org = await newOrg();
      for (let i = 1; i <= 5; i++) {
        assertEquals((await sendInvite(org.owner, crypto.randomUUID())).status, 404, `request ${i}`);
      }
      const started = Date.now();
      const limited = await sendInvite(org.owner, crypto.randomUUID());
      assertEquals(limited.status, 429);
      assertEquals(limited.body.error, "rate_limited");
      const resetAt = Date.parse(limited.body.reset_at as string);
      assert(resetAt > started && resetAt <= started + tenMinutesMs + 1000);
      assert(Number(limited.headers.get("retry-after")) > 0);
    });

    await t.step(
      "the 4th export and the 6th invite are 429 whatever functions the user calls first",
      async () => {
        const org = await newOrg();
        const user = org.owner;
        const token = await tokenFor(user);
        for (let i = 1; i <= 3; i++) {
          assertEquals((await post(exportUrl, { token })).status, 200, `export ${i}`);
        }
        for (let i = 1; i <= 5; i++) {
          assertEquals((await sendInvite(user, crypto.randomUUID())).status, 404, `invite request ${i}`);
        }
        // Every function the user may execute, with nulls and with limits they should not choose, each in its
        // own transaction as the user (the way PostgREST runs /rest/v1/rpc/...), plus direct writes.
        const functions = await stack.sql<{ call: string }[]>`
          select format('select * from %s(%s)', f.oid::regproc,
                        coalesce((select string_agg('null::' || format_type(t, null), ', ')
                                    from unnest(f.proargtypes) as t), '')) as call
            from pg_proc f
           where f.pronamespace = 'public'::regnamespace and f.prokind = 'f'
             and f.prorettype <> 'trigger'::regtype
             and has_function_privilege('authenticated', f.oid, 'EXECUTE')`;
        const attempts = [
          ...functions.map((row) => row.call),
          `select * from private.consume_session_request('export-account', 1000, '1 second')`,
          `select * from private.consume_session_request('send-org-invite', 1000, '1 second')`,
          `select * from private.consume_session_request('${user.user_id}', 'export-account')`,
          `select private.export_account('${user.user_id}')`,
          `delete from public.session_request_log`,
          `update public.session_request_log set requested_at = now() - interval '1 day'`,
          `update public.session_action_limits set max_requests = 1000`,
        ];
        for (const statement of attempts) {
          await asUser(user.user_id, (tx) => tx.unsafe(statement)).catch(() => undefined);
        }
        const exported = await post(exportUrl, { token });
        assertEquals(exported.status, 429, "4th export");
        assertEquals(exported.headers.get("ratelimit-limit"), "3");
        const invited = await sendInvite(user, crypto.randomUUID());
        assertEquals(invited.status, 429, "6th invite");
        assertEquals(invited.headers.get("ratelimit-limit"), "5");
      },
    );

    await t.step("send-org-invite: over the invite-mail caps the answer is rate_limited", async () => {
      const [saved] = await stack.sql<{ per_account_per_day: number; project_per_hour: number }[]>`
        select per_account_per_day, project_per_hour from public.invite_mail_limits`;
      try {
        await stack.sql`delete from public.invite_mail_log`;
        await stack.sql`update public.invite_mail_limits set per_account_per_day = 1, project_per_hour = 100`;
        fake.inviteAnswer = "ok";
        const org = await newOrg();
        const first = await newInvitation(org);
        const second = await newInvitation(org);
        assertEquals((await sendInvite(org.owner, first.id)).body, { sent: true });
        fake.invites.length = 0;
        const daily = await sendInvite(org.owner, second.id);
        assertEquals(daily.status, 200);
        assertEquals(daily.body, { sent: false, reason: "rate_limited" });
        assertEquals(fake.invites.length, 0, "Auth was not asked");
        assertEquals(await invitationRow(second.id), { status: "pending", emailed_at: null });

        // The project-wide hourly cap, for an account that has sent nothing today.
        await stack.sql`update public.invite_mail_limits set per_account_per_day = 100, project_per_hour = 1`;
        const other = await newOrg("Other");
        const invitation = await newInvitation(other);
        const hourly = await sendInvite(other.owner, invitation.id);
        assertEquals(hourly.body, { sent: false, reason: "rate_limited" });
        assertEquals(fake.invites.length, 0, "Auth was not asked");
        assertEquals(await invitationRow(invitation.id), { status: "pending", emailed_at: null });
      } finally {
        await stack.sql`update public.invite_mail_limits
                           set per_account_per_day = ${saved.per_account_per_day},
                               project_per_hour = ${saved.project_per_hour}`;
      }
    });

    await t.step(
      "send-org-invite: fair share — account A sends all it may in the hour, account B still sends",
      async () => {
        const [saved] = await stack.sql<{ per_account_per_day: number; project_per_hour: number }[]>`
          select per_account_per_day, project_per_hour from public.invite_mail_limits`;
        assertEquals(saved, { per_account_per_day: 10, project_per_hour: 10 }, "the shipped settings");
        try {
          await stack.sql`delete from public.invite_mail_log`;
          fake.inviteAnswer = "ok";
          const a = await newOrg("A");
          const answers = [];
          for (let i = 0; i < 4; i++) {
            answers.push((await sendInvite(a.owner, (await newInvitation(a)).id)).body);
          }
          assertEquals(answers, [
            { sent: true },
            { sent: true },
            { sent: true },
            { sent: false, reason: "rate_limited" },
          ], "a third of the project's 10 an hour, rounded down");
          const b = await newOrg("B");
          assertEquals((await sendInvite(b.owner, (await newInvitation(b)).id)).body, { sent: true });
        } finally {
          await stack.sql`delete from public.invite_mail_log`;
        }
      },
    );

    await t.step("accept_invitation: the invited account joins once, not after expiry", async () => {
      const org = await newOrg();
      const invitation = await newInvitation(org);
      const expired = await newInvitation(org, { email: invitation.email, expired: true });
      const invitee = await stack.sql<{ id: string }[]>`
        insert into auth.users (email, email_confirmed_at) values (${invitation.email}, now()) returning id`;
      const inviteeId = invitee[0].id;
      const [accepted] = await asUser(
        inviteeId,
        (tx) =>
          tx<
            { organization_id: string }[]
          >`select public.accept_invitation(${invitation.token}) as organization_id`,
      );
      assertEquals(accepted.organization_id, org.id);
      const [membership] = await stack.sql<{ role: string }[]>`
        select role from public.organization_members where organization_id = ${org.id} and user_id = ${inviteeId}`;
      assertEquals(membership.role, "member");
      assertEquals((await invitationRow(invitation.id)).status, "accepted");

      const again = await asUser(inviteeId, (tx) => tx`select public.accept_invitation(${invitation.token})`)
        .then(() => "accepted twice", (error) => String(error.code));
      assertEquals(again, "DW404");

      const late = await asUser(inviteeId, (tx) => tx`select public.accept_invitation(${expired.token})`)
        .then(() => "accepted after expiry", (error) => String(error.code));
      assertEquals(late, "DW400");
    });

    await t.step("the local Auth stand-in: an admin session token works against both endpoints", async () => {
      // What `deno task start` does: Auth is the gateway's own /auth/v1, tokens are HS256 from `deno task admin`.
      Deno.env.set("AUTH_BASE_URL", stack.gateway.url);
      try {
        const org = await newOrg();
        const token = await sessionToken({ id: org.owner.user_id, email: org.owner.email }, {
          secret: jwtSecret,
          supabaseUrl: stack.gateway.url,
        });
        const exported = await post(exportUrl, { token });
        assertEquals(exported.status, 200);

        const fresh = await newInvitation(org);
        // config.toml's [auth] allows http://localhost:3000 only: this APP_URL's link would lose its token.
        assertEquals((await post(inviteUrl, { token, json: { invitationId: fresh.id } })).body, {
          sent: false,
          reason: "send_failed",
        });
        assertEquals((await invitationRow(fresh.id)).emailed_at, null);
        Deno.env.set("GOTRUE_URI_ALLOW_LIST", `${appUrl}/accept-invite**`);
        assertEquals((await post(inviteUrl, { token, json: { invitationId: fresh.id } })).body, {
          sent: true,
        });
        const [invited] = await stack.sql<{ invited_at: Date | null }[]>`
          select invited_at from auth.users where email = ${fresh.email}`;
        assert(invited?.invited_at, "the stand-in created the invited user");
        assert((await invitationRow(fresh.id)).emailed_at !== null);

        const registered = await newInvitation(org, { email: (await stack.account("free")).email });
        assertEquals((await post(inviteUrl, { token, json: { invitationId: registered.id } })).body, {
          sent: false,
          reason: "existing_account",
        });
        assertEquals((await invitationRow(registered.id)).emailed_at, null);

        const es256 = await fake.sign({ sub: org.owner.user_id }, { issuer: `${stack.gateway.url}/auth/v1` });
        assertEquals((await post(exportUrl, { token: es256 })).status, 401, "the stand-in's JWKS is empty");
      } finally {
        Deno.env.set("AUTH_BASE_URL", fake.url);
        Deno.env.delete("GOTRUE_URI_ALLOW_LIST");
      }
    });
  } finally {
    await stack.close();
    await fake.close();
    for (const [name, value] of Object.entries(savedEnvironment)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});
