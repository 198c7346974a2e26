/** The static hosts' files the build writes: the same headers as the local host, and the SPA fallback. */
import { contentSecurityPolicy, hostFiles, securityHeaders } from "../../platform/app_host/headers.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";

const project = {
  supabaseUrl: "https://abc.supabase.co",
  functionsUrl: "https://abc.supabase.co/functions/v1",
};

Deno.test("the content security policy: own files, the project's URL, never framed", () => {
  const policy = contentSecurityPolicy(project);
  assertMatch(policy, /(^|; )frame-ancestors 'none'(;|$)/);
  assertMatch(policy, /(^|; )script-src 'self'(;|$)/);
  assertMatch(policy, /(^|; )connect-src 'self' https:\/\/abc\.supabase\.co(;|$)/);
  assert(!/unsafe-/.test(policy), "no unsafe-inline or unsafe-eval");
  assertMatch(
    contentSecurityPolicy({ supabaseUrl: "https://abc.supabase.co", functionsUrl: "https://fn.example/v1" }),
    /connect-src 'self' https:\/\/abc\.supabase\.co https:\/\/fn\.example;/,
  );
  assertMatch(contentSecurityPolicy({}), /connect-src 'self' https:\/\/\*\.supabase\.co;/);
  assertEquals(securityHeaders(project)["x-frame-options"], "DENY");
});

Deno.test("_headers, _redirects and vercel.json carry the headers and the SPA fallback", () => {
  const files = hostFiles(project);
  const headers = files["_headers"];
  assert(headers.startsWith("/*\n"), headers);
  assert(headers.includes(`  Content-Security-Policy: ${contentSecurityPolicy(project)}\n`), headers);
  assert(headers.includes("  X-Frame-Options: DENY\n"), headers);
  assertEquals(files["_redirects"], "/*  /index.html  200\n");
  const vercel = JSON.parse(files["vercel.json"]);
  assertEquals(vercel.rewrites, [{ source: "/(.*)", destination: "/index.html" }]);
  const all = vercel.headers[0];
  assertEquals(all.source, "/(.*)");
  assert(
    all.headers.some((h: { key: string; value: string }) =>
      h.key === "Content-Security-Policy" && h.value === contentSecurityPolicy(project)
    ),
  );
  assert(
    all.headers.some((h: { key: string; value: string }) =>
      h.key === "X-Frame-Options" && h.value === "DENY"
    ),
  );
});
