/** Where a sign-in may send the browser next (`next`), and what a link that did not sign in says. */
import { linkNotice, localPath, withoutLinkParameters } from "../../app/src/data/auth_links.ts";
import { assert, assertEquals } from "../support/assert.ts";

const cases: [string | null, string][] = [
  [null, "/"],
  ["", "/"],
  ["/", "/"],
  ["/alerts", "/alerts"],
  ["/domains/example.com", "/domains/example.com"],
  ["/oauth/consent?authorization_id=abc", "/oauth/consent?authorization_id=abc"],
  ["/accept-invite?token=a%2Fb", "/accept-invite?token=a%2Fb"],
  ["/a?next=//evil.example", "/a?next=//evil.example"],
  ["/#section", "/#section"],
  ["@evil.example", "/"],
  ["evil.example", "/"],
  ["//evil.example", "/"],
  ["//evil.example/path", "/"],
  ["///evil.example", "/"],
  ["/\\evil.example", "/"],
  ["\\/evil.example", "/"],
  ["/\\/evil.example", "/"],
  ["/a\\b", "/"],
  ["/\t/evil.example", "/"],
  ["/\n/evil.example", "/"],
  ["/\r/evil.example", "/"],
  [" /evil", "/"],
  ["/ evil", "/"],
  ["/\u0000", "/"],
  ["/\u007f", "/"],
  ["https://evil.example", "/"],
  ["javascript:alert(1)", "/"],
  ["http:/evil.example", "/"],
  ["?next=x", "/"],
  ["#x", "/"],
];

Deno.test("next: only a path on this origin, anything else is /", () => {
  for (const [next, expected] of cases) {
    assertEquals(localPath(next), expected, JSON.stringify(next));
    const url = new URL(`https://app.example${localPath(next)}`);
    assertEquals(url.origin, "https://app.example", `stays on the origin: ${JSON.stringify(next)}`);
  }
});

Deno.test("a link that did not sign in says why; its own parameters leave next", () => {
  assertEquals(linkNotice("", "", false), null);
  assertEquals(linkNotice("?next=/alerts", "", false), null);
  assertEquals(linkNotice("?code=abc", "", true), null, "signed in: the code was this browser's");
  assert(linkNotice("?code=abc", "", false)?.includes("different browser"));
  assert(
    linkNotice("?error=access_denied&error_description=Email+link+is+invalid+or+has+expired", "", false)
      ?.includes("Email link is invalid or has expired"),
  );
  assert(linkNotice("", "#error=access_denied&error_description=Gone", true)?.includes("Gone"));
  assertEquals(withoutLinkParameters("/", "?code=abc"), "/");
  assertEquals(
    withoutLinkParameters("/oauth/consent", "?authorization_id=x&code=abc&error=y"),
    "/oauth/consent?authorization_id=x",
  );
});
