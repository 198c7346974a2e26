/**
 * What a deploy resolves. `supabase functions deploy` bundles from import_map.json and the sources, never
 * from deno.lock, so npm packages resolve afresh at deploy time. Every package the functions import
 * directly is pinned to one exact version in import_map.json, the very version deno.lock (the tested
 * graph) holds. Below them, a package may float only where a dependency in the tested graph declares a
 * range: the exact list is docs/floating-dependencies.json (why that is acceptable: docs/deploy.md,
 * "Pinned dependencies"). A new range, or one that changed, fails here until that list is updated.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../support/assert.ts";

const root = new URL("../../", import.meta.url).pathname;
const importMap = JSON.parse(await Deno.readTextFile(join(root, "import_map.json"))) as {
  imports: Record<string, string>;
};
const lock = JSON.parse(await Deno.readTextFile(join(root, "deno.lock"))) as {
  version: string;
  specifiers: Record<string, string>;
  npm: Record<string, { dependencies?: string[] }>;
};

function directPins(): Map<string, string> {
  const pins = new Map<string, string>();
  for (const target of Object.values(importMap.imports)) {
    const match = target.match(/^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/);
    assert(match, `import_map.json maps to something other than an npm package: ${target}`);
    pins.set(match[1], match[2]);
  }
  return pins;
}

/** The Deno npm cache the suite filled (`deno info --json` says where it is). */
async function npmCache(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return join(JSON.parse(new TextDecoder().decode(output.stdout)).npmCache, "registry.npmjs.org");
}

function nameAndVersion(key: string): [string, string] {
  const bare = key.split("_")[0];
  const at = bare.lastIndexOf("@");
  return [bare.slice(0, at), bare.slice(at + 1)];
}

Deno.test("every directly imported npm package is pinned exactly, to the version deno.lock tested", () => {
  for (const [name, version] of directPins()) {
    assert(/^\d+\.\d+\.\d+$/.test(version), `${name}@${version} in import_map.json is not one exact version`);
    const locked = lock.specifiers[`npm:${name}@${version}`];
    assert(locked, `npm:${name}@${version} is not in deno.lock: regenerate it (docs/runtime.md)`);
    assertEquals(locked.split("_")[0], version, name);
  }
});

Deno.test("below the pins, only the ranges in docs/floating-dependencies.json may float", async () => {
  const cache = await npmCache();
  const floating: string[] = [];
  for (const [key, entry] of Object.entries(lock.npm)) {
    const [name, version] = nameAndVersion(key);
    const manifest = JSON.parse(await Deno.readTextFile(join(cache, name, version, "package.json")));
    const declared: Record<string, string> = {
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
      ...manifest.dependencies,
    };
    for (const dependency of entry.dependencies ?? []) {
      const [dependencyName] = dependency.startsWith("@")
        ? ["@" + dependency.slice(1).split("@")[0]]
        : [dependency.split("@")[0]];
      const range = declared[dependencyName];
      assert(range !== undefined, `${name}@${version} uses ${dependencyName} without declaring it`);
      if (!/^\d+\.\d+\.\d+$/.test(range)) floating.push(`${name}@${version} -> ${dependencyName} ${range}`);
    }
  }
  const documented = JSON.parse(await Deno.readTextFile(join(root, "docs", "floating-dependencies.json")));
  assertEquals(
    floating.sort(),
    documented.ranges,
    `docs/floating-dependencies.json is out of date; the tested graph's ranges are:\n${
      JSON.stringify(floating.sort(), null, 2)
    }`,
  );
});
