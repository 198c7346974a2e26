import { assert, assertEquals } from "../support/assert.ts";
import {
  booleanLiteral,
  hexTextLiteral,
  integerLiteral,
  nullableLiteral,
  textLiteral,
  uuidLiteral,
} from "../../supabase/functions/_shared/db/literals.ts";

function assertThrows(work: () => unknown): void {
  let threw = false;
  try {
    work();
  } catch {
    threw = true;
  }
  assert(threw, "expected a TypeError");
}

Deno.test("literals inline only values of a checked form", () => {
  assertEquals(integerLiteral(200), "200::integer");
  assertEquals(integerLiteral(-1), "-1::integer");
  assertThrows(() => integerLiteral(1.5));
  assertThrows(() => integerLiteral(Number.NaN));
  assertEquals(booleanLiteral(true), "true");
  assertThrows(() => booleanLiteral("true" as unknown as boolean));
  assertEquals(
    uuidLiteral("0E3F6A52-1D5B-4C7E-9F00-1234567890AB"),
    "'0e3f6a52-1d5b-4c7e-9f00-1234567890ab'::uuid",
  );
  assertThrows(() => uuidLiteral("x'; drop table t; --"));
  assertEquals(hexTextLiteral("00ff"), "'00ff'::text");
  assertThrows(() => hexTextLiteral("00FF'"));
  assertEquals(nullableLiteral(null, integerLiteral), "null");
  assertEquals(nullableLiteral(undefined, integerLiteral), "null");
});

Deno.test("any text becomes hex of its UTF-8 bytes, so quotes and backslashes never reach the SQL", () => {
  assertEquals(textLiteral("a'b"), "convert_from(decode('612762', 'hex'), 'UTF8')");
  assertEquals(textLiteral("é\\"), "convert_from(decode('c3a95c', 'hex'), 'UTF8')");
  assertEquals(textLiteral(""), "convert_from(decode('', 'hex'), 'UTF8')");
});
