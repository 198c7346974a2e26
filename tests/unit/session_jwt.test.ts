/**
 * Session JWT verification (supabase/functions/_shared/session/jwt.ts) against the fake Auth's JWKS, a
 * configured key set and the HS256 secret, including the usual attacks.
 */
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import {
  bearerToken,
  jwksRefetchIntervalMs,
  verifyOAuthAccessToken,
  verifySession,
} from "../../supabase/functions/_shared/session/jwt.ts";
import { type FakeAuth, fakeKeyId, startFakeAuth } from "../fakes/auth_server.ts";
import { assert, assertEquals, assertRejects } from "../support/assert.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const secret = "unit-test-hs256-secret-with-at-least-32-characters";
const userId = "8f7c2b4e-3d1a-4c5b-9e6f-0a1b2c3d4e5f";
const settings = ["AUTH_BASE_URL", "SUPABASE_URL", "SUPABASE_JWKS", "AUTH_JWT_SECRET"];

function hmacKey(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

async function expectUnauthorized(token: string | undefined, label: string): Promise<void> {
  const header = token === undefined ? undefined : `Bearer ${token}`;
  const error = await assertRejects(() => verifySession(header), `${label}: expected a rejection`);
  assert(error instanceof ApiError, `${label}: expected an ApiError, got ${error}`);
  assertEquals(error.code, "unauthorized", label);
  assertEquals(error.status, 401, label);
}

async function withEnvironment(values: Record<string, string | undefined>, work: () => Promise<void>) {
  const saved = Object.fromEntries(settings.map((name) => [name, Deno.env.get(name)]));
  try {
    for (const name of settings) {
      const value = name in values ? values[name] : saved[name];
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
    await work();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test("session JWT verification", options, async (t) => {
  const fake: FakeAuth = await startFakeAuth();
  const remote = { AUTH_BASE_URL: fake.url, SUPABASE_JWKS: undefined, AUTH_JWT_SECRET: secret };
  try {
    await t.step("bearerToken needs `Bearer <token>`", async () => {
      assertEquals(bearerToken("Bearer abc.def.ghi"), "abc.def.ghi");
      assertEquals(bearerToken("bearer abc.def.ghi"), "abc.def.ghi");
      for (
        const header of [undefined, null, "", "Bearer", "Basic dXNlcjpwdw==", "abc.def.ghi", "Bearer a b"]
      ) {
        const error = await assertRejects(() => verifySession(header));
        assert(error instanceof ApiError && error.code === "unauthorized", `header ${header}`);
      }
    });

    await t.step("an ES256 token from the Auth JWKS is accepted; the key set is fetched once", async () => {
      await withEnvironment(remote, async () => {
        const token = await fake.sign({ sub: userId, email: "a@example.test" });
        assertEquals(await verifySession(`Bearer ${token}`), { userId, email: "a@example.test" });
        const before = fake.jwksRequests;
        await verifySession(`Bearer ${await fake.sign({ sub: userId })}`);
        assertEquals(fake.jwksRequests, before, "the JWKS is cached");
      });
    });

    await t.step("SUPABASE_JWKS holding a key set is used without fetching", async () => {
      const rsa = await generateKeyPair("RS256", { extractable: true });
      const rsaJwk = { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" };
      const keySet = JSON.stringify({ keys: [...fake.jwks.keys, rsaJwk] });
      await withEnvironment(
        { ...remote, AUTH_BASE_URL: "http://127.0.0.1:9", SUPABASE_JWKS: keySet },
        async () => {
          const issuer = "http://127.0.0.1:9/auth/v1";
          const es256 = await fake.sign({ sub: userId }, { issuer });
          assertEquals((await verifySession(`Bearer ${es256}`)).userId, userId);
          const rs256 = await fake.sign({ sub: userId }, {
            alg: "RS256",
            key: rsa.privateKey,
            kid: "rsa-1",
            issuer,
          });
          assertEquals((await verifySession(`Bearer ${rs256}`)).userId, userId);
        },
      );
    });

    await t.step("an EdDSA (Ed25519) token from the key set is accepted", async () => {
      const ed = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
      const edJwk = { ...(await exportJWK(ed.publicKey)), kid: "ed-1", alg: "EdDSA", use: "sig" };
      const keySet = JSON.stringify({ keys: [...fake.jwks.keys, edJwk] });
      await withEnvironment(
        { ...remote, AUTH_BASE_URL: "http://127.0.0.1:9", SUPABASE_JWKS: keySet },
        async () => {
          const issuer = "http://127.0.0.1:9/auth/v1";
          const token = await fake.sign({ sub: userId }, {
            alg: "EdDSA",
            key: ed.privateKey,
            kid: "ed-1",
            issuer,
          });
          assertEquals((await verifySession(`Bearer ${token}`)).userId, userId);
          const foreign = await generateKeyPair("EdDSA", { crv: "Ed25519" });
          const forged = await fake.sign({ sub: userId }, {
            alg: "EdDSA",
            key: foreign.privateKey,
            kid: "ed-1",
            issuer,
          });
          await expectUnauthorized(forged, "EdDSA signed by another key");
        },
      );
    });

    await t.step("a token issued to an OAuth client (client_id) is no session: 403", async () => {
      await withEnvironment(remote, async () => {
        const token = await fake.sign({ sub: userId, client_id: "assistant-client" });
        const error = await assertRejects(() => verifySession(`Bearer ${token}`));
        assert(error instanceof ApiError, String(error));
        assertEquals([error.code, error.status], ["forbidden", 403]);
        assertEquals((await verifyOAuthAccessToken(token)).clientId, "assistant-client");
        const plain = await fake.sign({ sub: userId, client_id: "" });
        assertEquals((await verifySession(`Bearer ${plain}`)).userId, userId);
      });
    });

    await t.step(
      "an inline SUPABASE_JWKS without the token's kid asks Auth's JWKS URL (a rotated key works)",
      async () => {
        const rotated = await generateKeyPair("ES256", { extractable: true });
        const rotatedJwk = {
          ...(await exportJWK(rotated.publicKey)),
          kid: "rotated-1",
          alg: "ES256",
          use: "sig",
        };
        const inline = JSON.stringify(fake.jwks); // the key set as configured before the rotation
        fake.jwks.keys.push(rotatedJwk); // Auth now also serves the new key
        try {
          await withEnvironment({ ...remote, SUPABASE_JWKS: inline }, async () => {
            const before = fake.jwksRequests;
            const token = await fake.sign({ sub: userId }, { key: rotated.privateKey, kid: "rotated-1" });
            assertEquals((await verifySession(`Bearer ${token}`)).userId, userId);
            assertEquals(fake.jwksRequests, before + 1, "one fetch of the JWKS URL");
            const again = await fake.sign({ sub: userId }, { key: rotated.privateKey, kid: "rotated-1" });
            assertEquals((await verifySession(`Bearer ${again}`)).userId, userId);
            assertEquals(fake.jwksRequests, before + 1, "the fetched key set is used within the window");
            // A known kid never fetches.
            assertEquals((await verifySession(`Bearer ${await fake.sign({ sub: userId })}`)).userId, userId);
            assertEquals(fake.jwksRequests, before + 1);
          });
        } finally {
          fake.jwks.keys.pop();
        }
      },
    );

    await t.step("a flood of unknown kids fetches the JWKS URL at most once per window", async () => {
      const other: FakeAuth = await startFakeAuth(); // a fresh URL, so a fresh window
      try {
        await withEnvironment(
          { ...remote, AUTH_BASE_URL: other.url, SUPABASE_JWKS: JSON.stringify(other.jwks) },
          async () => {
            const forger = await generateKeyPair("ES256");
            const tokens = await Promise.all(
              Array.from(
                { length: 25 },
                (_, i) => other.sign({ sub: userId }, { key: forger.privateKey, kid: `unknown-${i}` }),
              ),
            );
            await Promise.all(tokens.map((token, i) => expectUnauthorized(token, `unknown kid ${i}`)));
            for (const token of tokens.slice(0, 5)) await expectUnauthorized(token, "unknown kid, again");
            assertEquals(other.jwksRequests, 1, "one fetch for 30 refused tokens");
            assert(jwksRefetchIntervalMs >= 30_000, "the window is at least 30 s");
          },
        );
      } finally {
        await other.close();
      }
    });

    await t.step("SUPABASE_JWKS holding a URL is fetched from there", async () => {
      const jwksUrl = `${fake.url}/auth/v1/.well-known/jwks.json`;
      await withEnvironment(
        { ...remote, AUTH_BASE_URL: "http://127.0.0.1:9", SUPABASE_JWKS: jwksUrl },
        async () => {
          const token = await fake.sign({ sub: userId }, { issuer: "http://127.0.0.1:9/auth/v1" });
          assertEquals((await verifySession(`Bearer ${token}`)).userId, userId);
        },
      );
    });

    await t.step("an HS256 token is accepted with AUTH_JWT_SECRET and refused without it", async () => {
      const token = await fake.sign({ sub: userId }, { alg: "HS256", key: hmacKey(secret) });
      await withEnvironment(remote, async () => {
        assertEquals((await verifySession(`Bearer ${token}`)).userId, userId);
      });
      await withEnvironment({ ...remote, AUTH_JWT_SECRET: undefined }, async () => {
        await expectUnauthorized(token, "HS256 without a configured secret");
      });
    });

    await t.step(
      "HS256 with a wrong secret or the public key as secret (key confusion) is refused",
      async () => {
        const pem = await exportSPKI(fake.publicKey);
        const jwkText = JSON.stringify(fake.jwks.keys[0]);
        const tokens = {
          "wrong secret": await fake.sign({ sub: userId }, { alg: "HS256", key: hmacKey(`${secret}-not`) }),
          "public key PEM as HMAC secret": await fake.sign({ sub: userId }, {
            alg: "HS256",
            key: hmacKey(pem),
          }),
          "public JWK as HMAC secret": await fake.sign({ sub: userId }, {
            alg: "HS256",
            key: hmacKey(jwkText),
          }),
        };
        for (const environment of [remote, { ...remote, AUTH_JWT_SECRET: undefined }]) {
          await withEnvironment(environment, async () => {
            for (const [label, token] of Object.entries(tokens)) await expectUnauthorized(token, label);
          });
        }
        // An HS256 header carrying the JWKS key id changes nothing.
        const withKid = await new SignJWT({ sub: userId, role: "authenticated" })
          .setProtectedHeader({ alg: "HS256", kid: fakeKeyId })
          .setIssuer(fake.issuer).setAudience("authenticated").setExpirationTime("1h")
          .sign(hmacKey(pem));
        await withEnvironment(remote, () => expectUnauthorized(withKid, "HS256 with the JWKS kid"));
      },
    );

    await t.step("alg none is refused", async () => {
      const unsigned = new UnsecuredJWT({ sub: userId, role: "authenticated" })
        .setIssuer(fake.issuer).setAudience("authenticated").setExpirationTime("1h").encode();
      await withEnvironment(remote, async () => {
        await expectUnauthorized(unsigned, "alg none");
        const [, payload] = unsigned.split(".");
        const header = btoa(JSON.stringify({ alg: "NONE", typ: "JWT" })).replace(/=+$/, "");
        await expectUnauthorized(`${header}.${payload}.`, "alg NONE");
      });
    });

    await t.step("expired, foreign-issuer, wrong-audience and foreign-key tokens are refused", async () => {
      const foreign = await generateKeyPair("ES256");
      await withEnvironment(remote, async () => {
        const now = Math.floor(Date.now() / 1000);
        await expectUnauthorized(await fake.sign({ sub: userId }, { expiresAt: now - 60 }), "expired");
        await expectUnauthorized(
          await fake.sign({ sub: userId }, { issuer: "https://other.supabase.co/auth/v1" }),
          "foreign issuer",
        );
        await expectUnauthorized(await fake.sign({ sub: userId }, { audience: "anon" }), "wrong audience");
        await expectUnauthorized(
          await fake.sign({ sub: userId }, { key: foreign.privateKey }),
          "foreign key with our kid",
        );
        await expectUnauthorized(
          await fake.sign({ sub: userId }, { key: foreign.privateKey, kid: "someone-else" }),
          "foreign key with an unknown kid",
        );
        await expectUnauthorized("not-a-jwt", "garbage");
        await expectUnauthorized(
          `${(await fake.sign({ sub: userId })).slice(0, -4)}AAAA`,
          "tampered signature",
        );
      });
    });

    await t.step("tokens without a user session (role, sub, exp) are refused", async () => {
      await withEnvironment(remote, async () => {
        await expectUnauthorized(await fake.sign({ sub: userId, role: "anon" }), "anon role");
        await expectUnauthorized(await fake.sign({ sub: userId, role: "service_role" }), "service role");
        await expectUnauthorized(await fake.sign({ sub: "not-a-uuid" }), "sub not a UUID");
        await expectUnauthorized(await fake.sign({}), "no sub");
        const noExpiry = await new SignJWT({ sub: userId, role: "authenticated" })
          .setProtectedHeader({ alg: "HS256" })
          .setIssuer(fake.issuer).setAudience("authenticated")
          .sign(hmacKey(secret));
        await expectUnauthorized(noExpiry, "no exp");
      });
    });

    await t.step("an OAuth access token: JWKS-signed, with client_id; nothing else is one", async () => {
      await withEnvironment(remote, async () => {
        const clientId = crypto.randomUUID();
        const token = await fake.sign({ sub: userId, client_id: clientId });
        const caller = await verifyOAuthAccessToken(token);
        assertEquals(caller.userId, userId);
        assertEquals(caller.clientId, clientId);
        assert(caller.expiresAt > Date.now() / 1000);
        const refused: Record<string, string> = {
          "a session token (no client_id)": await fake.sign({ sub: userId }),
          "an empty client_id": await fake.sign({ sub: userId, client_id: "" }),
          "an HS256 token with client_id, although AUTH_JWT_SECRET is set": await fake.sign(
            { sub: userId, client_id: clientId },
            { alg: "HS256", key: hmacKey(secret) },
          ),
          "a foreign issuer": await fake.sign({ sub: userId, client_id: clientId }, {
            issuer: "https://other.example/auth/v1",
          }),
          "an expired token": await fake.sign({ sub: userId, client_id: clientId }, {
            expiresAt: Math.floor(Date.now() / 1000) - 10,
          }),
          "another role": await fake.sign({ sub: userId, client_id: clientId, role: "service_role" }),
        };
        for (const [label, refusedToken] of Object.entries(refused)) {
          const error = await assertRejects(() => verifyOAuthAccessToken(refusedToken), label);
          assert(error instanceof ApiError && error.code === "unauthorized", `${label}: ${error}`);
        }
      });
    });

    await t.step("an unreachable key set is an error on our side, not a 401", async () => {
      await withEnvironment({ ...remote, AUTH_BASE_URL: "http://127.0.0.1:9" }, async () => {
        const token = await fake.sign({ sub: userId }, { issuer: "http://127.0.0.1:9/auth/v1" });
        const error = await assertRejects(() => verifySession(`Bearer ${token}`));
        assert(!(error instanceof ApiError), `expected a server-side error, got ${error}`);
      });
    });
  } finally {
    await fake.close();
  }
});
