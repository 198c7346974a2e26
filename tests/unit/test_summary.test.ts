/** `deno task test` counts skipped tests apart from passes, so its `total:` line shows them. */
import { assertEquals } from "../support/assert.ts";
import { readDenoSummary, readTap } from "../../scripts/lib/test_summary.ts";

Deno.test("Deno's summary: passed, failed and ignored are read, steps are not counted as tests", () => {
  assertEquals(
    readDenoSummary("c ... ok (4ms)\n\nok | 2 passed (1 step) | 0 failed | 1 ignored (1 step) (42ms)\n"),
    { passed: 2, failed: 0, ignored: 1 },
  );
  assertEquals(readDenoSummary("ok | 7 passed | 0 failed (3s)\n"), { passed: 7, failed: 0, ignored: 0 });
  assertEquals(
    readDenoSummary("FAILED | 3 passed (2 steps) | 1 failed (1 step) | 2 ignored (1s)\n"),
    { passed: 3, failed: 1, ignored: 2 },
  );
  assertEquals(readDenoSummary("error: Module not found"), null);
});

Deno.test("pgTAP: a `# SKIP` line is skipped, not passed, and still fills the plan", () => {
  const result = readTap("1..3\nok 1 - a\nok 2 # SKIP no reason\nnot ok 3 - c\n");
  assertEquals([result.passed, result.failed, result.skipped], [1, 1, 1]);
  assertEquals(readTap("1..2\nok 1 - a\n").failed, 1, "a plan not met is a failure");
});
