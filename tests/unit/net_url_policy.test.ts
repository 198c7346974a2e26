import { assert, assertEquals } from "../support/assert.ts";
import {
  classifyAddress,
  isAllowedAddress,
  judgeUrl,
  parseIpv6,
} from "../../supabase/functions/_shared/net/url_policy.ts";

Deno.test("IPv4 addresses are classified by range", () => {
  for (const address of ["127.0.0.1", "127.255.0.9"]) {
    assertEquals(classifyAddress(address), "loopback", address);
  }
  for (
    const address of [
      "0.0.0.0",
      "10.1.2.3",
      "100.64.0.1",
      "100.100.100.200",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.0.0.170",
      "192.168.1.1",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
    ]
  ) assertEquals(classifyAddress(address), "non_public", address);
  for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "93.184.216.34"]) {
    assertEquals(classifyAddress(address), "public", address);
  }
  assertEquals(classifyAddress("256.1.1.1"), "invalid");
  assertEquals(classifyAddress("example.com"), "invalid");
});

Deno.test("IPv6 addresses, including forms that carry an IPv4 address", () => {
  assertEquals(classifyAddress("::1"), "loopback");
  assertEquals(classifyAddress("[::1]"), "loopback");
  assertEquals(classifyAddress("::ffff:127.0.0.1"), "loopback");
  assertEquals(classifyAddress("::ffff:7f00:1"), "loopback");
  assertEquals(classifyAddress("::127.0.0.1"), "loopback");
  assertEquals(classifyAddress("64:ff9b::a9fe:a9fe"), "non_public"); // NAT64 of 169.254.169.254
  assertEquals(classifyAddress("2002:a9fe:a9fe::1"), "non_public"); // 6to4 of 169.254.169.254
  assertEquals(classifyAddress("::ffff:169.254.169.254"), "non_public");
  assertEquals(classifyAddress("::ffff:8.8.8.8"), "public");
  for (
    const address of [
      "::",
      "fd00::1",
      "fd00:ec2::254",
      "fc00::5",
      "fe80::1",
      "fec0::1",
      "ff02::1",
      "2001:db8::1",
      "2001::1",
      "::ffff:0:a9fe:a9fe", // IPv4-translated (::ffff:0:0:0/96), whatever it carries
      "::ffff:0:808:808",
      "5f00::1", // SRv6 SIDs (5f00::/16)
      "5f00:ffff:ffff::1",
      "3fff::1", // documentation (3fff::/20)
      "3fff:fff:ffff::1",
    ]
  ) {
    assertEquals(classifyAddress(address), "non_public", address);
  }
  for (
    const address of [
      "2001:4860:4860::8888",
      "2606:4700:4700::1111",
      "2a00:1450:4001:80b::200e",
      "3fff:1000::1",
      "5f01::1",
    ]
  ) {
    assertEquals(classifyAddress(address), "public", address);
  }
  for (const address of ["1::2::3", "fe80::1%eth0", "12345::", "1:2:3:4:5:6:7:8:9", "::ffff:1.2.3"]) {
    assertEquals(classifyAddress(address), "invalid", address);
  }
  assertEquals(parseIpv6("1:2:3:4:5:6:7:8")?.length, 16);
  assertEquals(parseIpv6("::ffff:1.2.3.4")?.slice(10), [0xff, 0xff, 1, 2, 3, 4]);
});

Deno.test("loopback is allowed only with the local switch; other private ranges never", () => {
  assert(isAllowedAddress("8.8.8.8", false));
  assert(!isAllowedAddress("127.0.0.1", false));
  assert(isAllowedAddress("127.0.0.1", true));
  assert(isAllowedAddress("::1", true));
  assert(!isAllowedAddress("169.254.169.254", true));
  assert(!isAllowedAddress("10.0.0.1", true));
  assert(!isAllowedAddress("fd00::1", true));
});

Deno.test("webhook URLs: https, no private literals, no localhost or single-label hosts", () => {
  const refused = (url: string, allow = false) => {
    const verdict = judgeUrl(url, allow);
    assert(!verdict.ok, `${url} should be refused`);
  };
  const accepted = (url: string, allow = false) => {
    const verdict = judgeUrl(url, allow);
    assert(verdict.ok, `${url} should be accepted`);
    return verdict;
  };
  assertEquals(accepted("https://hooks.example.com/x").kind, "name");
  assertEquals(accepted("https://8.8.8.8/x").kind, "ip");
  assertEquals(accepted("https://[2001:4860:4860::8888]/").kind, "ip");
  refused("http://hooks.example.com/x");
  refused("ftp://hooks.example.com/x");
  refused("not a url");
  refused("https://127.0.0.1/");
  refused("https://2130706433/"); // 127.0.0.1 spelled as one number
  refused("https://0x7f.1/");
  refused("https://127.1/");
  refused("https://[::1]/");
  refused("https://[::ffff:127.0.0.1]/");
  refused("https://169.254.169.254/latest/meta-data");
  refused("https://[fd00::1]/");
  refused("https://10.0.0.1/");
  refused("https://localhost/");
  refused("https://api.localhost/");
  refused("https://intranet/");
  refused("https://metadata.google.internal/");
  // The local switch: http and loopback.
  assertEquals(accepted("http://127.0.0.1:8080/hook", true).kind, "ip");
  assertEquals(accepted("http://localhost:8080/hook", true).kind, "localhost");
  refused("http://169.254.169.254/", true);
  refused("https://[fd00::1]/", true);
});
