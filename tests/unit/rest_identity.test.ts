/**
 * Who a Data API request runs as (platform/rest/identity.ts): the gateway's key check, then the bearer
 * token as PostgREST reads it, with PostgREST's 401 codes and words.
 */
import { SignJWT } from "jose";
import { signWithLocalKey } from "../../platform/auth/oauth/signing.ts";
import { GatewayKeyError, identityOf } from "../../platform/rest/identity.ts";
import { PostgrestError } from "../../platform/rest/errors.ts";
import { localPublishableKey, localSecretKey } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";

const secret = "z".repeat(40);

function request(headers: Record<string, string>, query = ""): Request {
  return new Request(`http://127.0.0.1/rest/v1/plans${query}`, { headers });
}

function hs256(claims: Record<string, unknown>, expiresIn = "1h", key = secret): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(key));
}

async function refusal(headers: Record<string, string>): Promise<unknown> {
  try {
    await identityOf(request(headers));
  } catch (error) {
    return error;
  }
  throw new Error("accepted");
}

Deno.test("identity: keys and tokens as Supabase's gateway and PostgREST read them", async () => {
  const saved = ["AUTH_JWT_SECRET", "SUPABASE_PUBLISHABLE_KEYS", "SUPABASE_SECRET_KEYS"].map((name) =>
    [name, Deno.env.get(name)] as const
  );
  Deno.env.set("AUTH_JWT_SECRET", secret);
  Deno.env.delete("SUPABASE_PUBLISHABLE_KEYS");
  Deno.env.delete("SUPABASE_SECRET_KEYS");
  try {
    // The new keys alone (and as supabase-js also sends them, as the bearer) are their roles.
    assertEquals(await identityOf(request({ apikey: localPublishableKey })), {
      role: "anon",
      claims: { role: "anon" },
    });
    assertEquals(
      (await identityOf(
        request({ apikey: localPublishableKey, authorization: `Bearer ${localPublishableKey}` }),
      ))
        .role,
      "anon",
    );
    assertEquals((await identityOf(request({}, `?apikey=${localSecretKey}`))).role, "service_role");
    // A user's session token: its claims, role included.
    const user = crypto.randomUUID();
    const session = await identityOf(
      request({
        apikey: localPublishableKey,
        authorization: `Bearer ${await hs256({ sub: user, role: "authenticated" })}`,
      }),
    );
    assertEquals([session.role, session.claims.sub], ["authenticated", user]);
    const es256 = await identityOf(request({
      apikey: localPublishableKey,
      authorization: `Bearer ${await signWithLocalKey({ sub: user, role: "authenticated" })}`,
    }));
    assertEquals(es256.role, "authenticated");
    // A verified token without a role claim is anon; another scheme is no token.
    assertEquals(
      (await identityOf(request({ apikey: localPublishableKey, authorization: `Bearer ${await hs256({})}` })))
        .role,
      "anon",
    );
    assertEquals(
      (await identityOf(request({ apikey: localSecretKey, authorization: "Basic YTpi" }))).role,
      "service_role",
    );

    const noKey = await refusal({});
    assert(noKey instanceof GatewayKeyError);
    assertEquals(noKey.body.message, "No API key found in request");
    const badKey = await refusal({ apikey: "sb_publishable_nope" });
    assert(badKey instanceof GatewayKeyError);
    assertEquals(badKey.body.message, "Invalid API key");

    const cases: [string, string, string][] = [
      ["", "PGRST301", "Empty JWT is sent in Authorization header"],
      ["abc", "PGRST301", "Expected 3 parts in JWT; got 1"],
      [
        await hs256({ role: "authenticated" }, "1h", "w".repeat(40)),
        "PGRST301",
        "JWT cryptographic operation failed",
      ],
      [await hs256({ role: "authenticated" }, "-1m"), "PGRST303", "JWT expired"],
      [
        `${btoa(JSON.stringify({ alg: "none" }))}.${btoa("{}")}.`,
        "PGRST301",
        "Wrong or unsupported encoding algorithm",
      ],
    ];
    for (const [token, code, message] of cases) {
      const error = await refusal({ apikey: localPublishableKey, authorization: `Bearer ${token}` });
      assert(error instanceof PostgrestError, String(error));
      assertEquals([error.status, error.body.code, error.body.message], [401, code, message], token);
    }
    const privileged = await refusal({
      apikey: localPublishableKey,
      authorization: `Bearer ${await hs256({ role: "postgres" })}`,
    });
    assert(privileged instanceof PostgrestError);
    assertEquals([privileged.status, privileged.body.code], [403, "42501"]);
  } finally {
    for (const [name, value] of saved) {
      value === undefined ? Deno.env.delete(name) : Deno.env.set(name, value);
    }
  }
});
