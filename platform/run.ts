/** Runs a command to completion; throws with its output when it fails. */
export async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; quiet?: boolean } = {},
): Promise<string> {
  const output = await new Deno.Command(command, {
    args,
    env: options.env,
    cwd: options.cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${output.code}):\n${stdout}${stderr}`);
  }
  if (!options.quiet && stderr.trim()) console.error(stderr.trim());
  return stdout;
}

/** Runs a command with its output streamed to ours; resolves to its exit code. */
export async function runInherited(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<number> {
  const status = await new Deno.Command(command, {
    args,
    env: options.env,
    cwd: options.cwd,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  return status.code;
}
