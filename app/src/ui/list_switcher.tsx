/**
 * Which list the radar shows (issue 42): Personal, or each organization the account is a member of. Links,
 * so each list has its own address (`/`, `/organizations/<id>`).
 */
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import type { Organization } from "../data/types.ts";

export function ListSwitcher({ userId, current }: { userId: string; current: string | null }) {
  const [orgs, setOrgs] = useState<Organization[]>([]);
  useEffect(() => {
    api.organizations(userId).then(setOrgs, () => setOrgs([]));
  }, [userId]);
  if (orgs.length === 0 && current === null) return null;
  return (
    <nav class="list-switcher row" aria-label="Lists">
      <a href="/" aria-current={current === null ? "page" : undefined}>Personal</a>
      {orgs.map((org) => (
        <a
          key={org.id}
          href={`/organizations/${org.id}`}
          aria-current={current === org.id ? "page" : undefined}
        >
          {org.name}
        </a>
      ))}
    </nav>
  );
}
