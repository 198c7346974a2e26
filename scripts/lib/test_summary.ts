/**
 * Reading the results `deno task test` adds up (pure): pgTAP output and Deno's summary line. Skips are
 * counted apart from passes so the final `total:` line shows them.
 */

export interface TapResult {
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

export function readTap(output: string): TapResult {
  let ok = 0;
  let notOk = 0;
  let skip = 0;
  let planned: number | undefined;
  for (const line of output.split("\n")) {
    const plan = line.match(/^\s*1\.\.(\d+)/);
    if (plan) planned = Number(plan[1]);
    if (/^\s*ok \d+.*#\s*skip/i.test(line)) skip++;
    else if (/^\s*ok \d+/.test(line)) ok++;
    if (/^\s*not ok \d+/.test(line)) notOk++;
  }
  if (planned === undefined || ok + notOk + skip !== planned) notOk = Math.max(notOk, 1);
  return { passed: ok, failed: notOk, skipped: skip, output };
}

/** Deno's summary line, e.g. `ok | 12 passed (3 steps) | 0 failed | 2 ignored (1s)`. */
export function readDenoSummary(tail: string): { passed: number; failed: number; ignored: number } | null {
  const summary = tail.match(/(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed[^\n]*/);
  if (!summary) return null;
  const ignored = summary[0].match(/\| (\d+) ignored/);
  return {
    passed: Number(summary[1]),
    failed: Number(summary[2]),
    ignored: ignored ? Number(ignored[1]) : 0,
  };
}
