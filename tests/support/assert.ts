/** The assertion names the tests use, on top of node:assert (jsr's @std/assert cannot be fetched here). */
import assertModule from "node:assert/strict";

export function assert(condition: unknown, message?: string): asserts condition {
  assertModule.ok(condition, message);
}

export function assertEquals<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  assertModule.deepStrictEqual(actual, expected, message);
}

export function assertNotEquals(actual: unknown, expected: unknown, message?: string): void {
  assertModule.notDeepStrictEqual(actual, expected, message);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  assertModule.match(actual, pattern, message);
}

export function assertFalse(condition: unknown, message?: string): void {
  assertModule.ok(!condition, message);
}

export async function assertRejects(work: () => Promise<unknown>, message?: string): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new assertModule.AssertionError({ message: message ?? "expected the promise to reject" });
}
