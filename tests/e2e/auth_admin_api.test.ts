/**
 * What auth-js's own suite taught about the Auth stand-in (docs/runtime.md, "auth-js's suite"), as the
 * project's own cases with supabase-js against the local stack: GoTrue's admin users API (service role only,
 * paging), generate_link honouring each type (an unknown address's recovery link is 404 user_not_found),
 * invite and generate_link validating addresses, the OAuth server's admin API.
 */
import { createClient } from "@supabase/supabase-js";
import { localPublishableKey, localSecretKey } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack, type TestStack, uniqueEmail } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const invalidEmail = "xx:;x@x.x";

function admin(stack: TestStack) {
  return createClient(stack.gateway.url, localSecretKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  }).auth.admin;
}

Deno.test(
  "auth admin API: users created, listed with paging, read, updated, deleted; service role only",
  options,
  async () => {
    const stack = await startStack();
    try {
      const api = admin(stack);
      const email = uniqueEmail("admin");
      const created = await api.createUser({
        email,
        password: "Admin-made-1",
        user_metadata: { name: "A" },
        app_metadata: { roles: ["x"] },
      });
      assertEquals(created.error, null);
      assertEquals(created.data.user?.email, email);
      assertEquals(created.data.user?.app_metadata, {
        provider: "email",
        providers: ["email"],
        roles: ["x"],
      });
      assertEquals(created.data.user?.email_confirmed_at, undefined);
      const id = created.data.user!.id;
      const again = await api.createUser({ email, password: "Admin-made-1" });
      assertEquals([again.error?.status, again.error?.code], [422, "email_exists"]);
      const bad = await api.createUser({ email: invalidEmail, password: "Admin-made-1" });
      assertEquals(bad.error?.message, "Unable to validate email address: invalid format");

      await api.createUser({ email: uniqueEmail("admin2"), password: "Admin-made-1" });
      const page = await api.listUsers({ page: 1, perPage: 1 });
      assertEquals(page.error, null);
      assertEquals(page.data.users.length, 1);
      assert((page.data as { total: number }).total >= 2, "X-Total-Count read as total");
      assertEquals((page.data as { nextPage: number | null }).nextPage, 2);
      const invalidPage = await api.listUsers({ page: -1, perPage: 10 });
      assertEquals([invalidPage.error?.status, invalidPage.data.users], [400, []]);

      assertEquals((await api.getUserById(id)).data.user?.email, email);
      const unknown = await api.getUserById(crypto.randomUUID());
      assertEquals([unknown.error?.status, unknown.error?.code], [404, "user_not_found"]);

      const updated = await api.updateUserById(id, { email_confirm: true, user_metadata: { name: "B" } });
      assertEquals(updated.error, null);
      assert(updated.data.user?.email_confirmed_at, "confirmed");
      assertEquals(updated.data.user?.user_metadata, { name: "B" });
      const signIn = await createClient(stack.gateway.url, localPublishableKey, {
        auth: { persistSession: false },
      })
        .auth.signInWithPassword({ email, password: "Admin-made-1" });
      assertEquals(signIn.error, null);

      // Only admin credentials: a user's own token is 403 not_admin, the publishable key alone 401.
      const asUser = await fetch(`${stack.gateway.url}/auth/v1/admin/users`, {
        headers: {
          apikey: localPublishableKey,
          authorization: `Bearer ${signIn.data.session!.access_token}`,
        },
      });
      assertEquals([asUser.status, (await asUser.json()).error_code], [403, "not_admin"]);
      const anon = await fetch(`${stack.gateway.url}/auth/v1/admin/users`, {
        headers: { apikey: localPublishableKey },
      });
      assertEquals(anon.status, 401);
      await anon.body?.cancel();

      assertEquals((await api.deleteUser(id)).error, null);
      assertEquals((await api.getUserById(id)).error?.status, 404);
      const [row] = await stack.sql`select 1 from auth.users where id = ${id}`;
      assertEquals(row, undefined, "a hard delete");
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "auth admin API: generate_link honours each type; invite validates the address",
  options,
  async () => {
    const stack = await startStack();
    try {
      const api = admin(stack);
      const unknownRecovery = await api.generateLink({ type: "recovery", email: uniqueEmail("nobody") });
      assertEquals([unknownRecovery.error?.status, unknownRecovery.error?.code], [404, "user_not_found"]);
      const [none] = await stack
        .sql`select 1 from auth.users where invited_at is not null and email like 'nobody-%'`;
      assertEquals(none, undefined, "no invited user is made for a recovery link");

      const email = uniqueEmail("linked");
      const signup = await api.generateLink({
        type: "signup",
        email,
        password: "Link-made-1",
        options: { data: { a: 1 } },
      });
      assertEquals(signup.error, null);
      assertEquals(signup.data.properties?.verification_type, "signup");
      assert(/type=signup/.test(signup.data.properties!.action_link));
      assertEquals(signup.data.user?.user_metadata, { a: 1 });

      const recovery = await api.generateLink({ type: "recovery", email });
      assertEquals([recovery.error, recovery.data.properties?.verification_type], [null, "recovery"]);
      const magic = await api.generateLink({ type: "magiclink", email });
      assertEquals(magic.data.properties?.verification_type, "magiclink");
      const newEmail = uniqueEmail("moved");
      const change = await api.generateLink({ type: "email_change_current", email, newEmail });
      assertEquals([change.error, change.data.user?.new_email], [null, newEmail]);
      assert(/type=email_change/.test(change.data.properties!.action_link));

      const invite = await api.generateLink({ type: "invite", email: uniqueEmail("invited") });
      assertEquals([invite.error, invite.data.properties?.verification_type], [null, "invite"]);
      assert(invite.data.user?.invited_at, "invited");

      const badLink = await api.generateLink({
        type: "signup",
        email: invalidEmail,
        password: "Link-made-1",
      });
      assertEquals(badLink.error?.message, "Unable to validate email address: invalid format");
      const badInvite = await api.inviteUserByEmail(invalidEmail);
      assertEquals(badInvite.error?.message, "Unable to validate email address: invalid format");
    } finally {
      await stack.close();
    }
  },
);

Deno.test(
  "auth admin API: OAuth server clients created, listed, read, updated, secrets regenerated, deleted",
  options,
  async () => {
    const stack = await startStack();
    try {
      const oauth = admin(stack).oauth;
      const created = await oauth.createClient({
        client_name: "Admin made",
        redirect_uris: ["https://a.example/cb"],
      });
      assertEquals(created.error, null);
      const id = created.data!.client_id;
      assert(created.data!.client_secret, "the secret is shown once");
      assertEquals(created.data!.registration_type, "manual");
      const got = await oauth.getClient(id);
      assertEquals([got.data?.client_id, (got.data as { client_secret?: string }).client_secret], [
        id,
        undefined,
      ]);
      assert((await oauth.listClients()).data.clients.some((client) => client.client_id === id));
      const updated = await oauth.updateClient(id, { logo_uri: "https://a.example/logo.png" });
      assertEquals([updated.data?.logo_uri, updated.data?.client_name], [
        "https://a.example/logo.png",
        "Admin made",
      ]);
      const regenerated = await oauth.regenerateClientSecret(id);
      assert(
        regenerated.data?.client_secret && regenerated.data.client_secret !== created.data!.client_secret,
      );
      const empty = await oauth.createClient({ client_name: "x", redirect_uris: [] });
      assertEquals(empty.error?.message, "redirect_uris is required");
      assertEquals((await oauth.deleteClient(id)).error, null);
      const gone = await oauth.getClient(id);
      assertEquals([gone.error?.status, gone.error?.code], [404, "oauth_client_not_found"]);
    } finally {
      await stack.close();
    }
  },
);
