/** The local Auth stand-in's redirect rule, as supabase/auth applies it (IsRedirectURLValid). */
import { isRedirectAllowed, redirectAuthWouldUse } from "../../platform/auth/redirects.ts";
import { assertEquals } from "../support/assert.ts";

const site = "https://app.example.com";
const link = "https://app.example.com/accept-invite?token=abc123";

Deno.test("a redirect to the Site URL's scheme, host and port is honoured", () => {
  assertEquals(isRedirectAllowed(site, [], link), true);
  assertEquals(isRedirectAllowed(site, [], "http://app.example.com/accept-invite?token=abc123"), false);
  assertEquals(isRedirectAllowed(site, [], "https://app.example.com:8443/x"), false);
  assertEquals(
    isRedirectAllowed("http://localhost:3000", [], "http://localhost:5173/x"),
    true,
    "loopback port",
  );
});

Deno.test("other hosts need a matching allow-list glob; otherwise Auth falls back to the Site URL", () => {
  const other = "https://other.example.net";
  assertEquals(isRedirectAllowed(other, [], link), false);
  assertEquals(redirectAuthWouldUse(other, [], link), other, "silently the Site URL: the token is lost");
  assertEquals(isRedirectAllowed(other, ["https://app.example.com/accept-invite"], link), false, "query too");
  assertEquals(isRedirectAllowed(other, ["https://app.example.com/accept-invite**"], link), true);
  assertEquals(isRedirectAllowed(other, ["https://app.example.com/**"], link), true);
  assertEquals(isRedirectAllowed(other, ["https://*.example.com/**"], link), true);
  assertEquals(isRedirectAllowed(other, ["https://*.com/**"], link), false, "* stops at a dot");
  assertEquals(redirectAuthWouldUse(other, ["https://app.example.com/**"], link), link);
});

Deno.test("numeric hosts never, IP literals only on loopback", () => {
  assertEquals(isRedirectAllowed(site, ["**"], "http://2130706433/x"), false);
  assertEquals(isRedirectAllowed(site, ["**"], "http://10.0.0.1/x"), false);
  assertEquals(isRedirectAllowed(site, [], "http://127.0.0.1:3000/x"), true);
});
