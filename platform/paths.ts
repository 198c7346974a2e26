import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute paths of the repository and of the git-ignored folder the local stack keeps its state in. */
export const repoRoot = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
export const localDir = join(repoRoot, ".local");
export const supabaseDir = join(repoRoot, "supabase");
export const migrationsDir = join(supabaseDir, "migrations");
export const functionsDir = join(supabaseDir, "functions");
export const bootstrapSql = join(repoRoot, "platform", "postgres", "bootstrap.sql");
export const seedSql = join(supabaseDir, "seed.sql");
export const pgTestsDir = join(supabaseDir, "tests", "database");
export const stackStateFile = join(localDir, "stack.json");
