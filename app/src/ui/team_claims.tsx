/**
 * A name's claims in the caller's organizations (issue 42), on the name's page: which organization lists it,
 * who claimed it there, and Claim / Release. The claimer is named from the organization's member list.
 */
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import type { Member, Organization } from "../data/types.ts";
import { ActButton } from "./act_button.tsx";
import { ErrorNote, formatTime, useAction } from "./components.tsx";

interface Row {
  organization: Organization;
  claim: { user_id: string; claimed_at: string } | null;
  members: Member[];
}

export function TeamClaims({ userId, name }: { userId: string; name: string }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [version, setVersion] = useState(0);
  const { busy, error, act } = useAction();
  useEffect(() => {
    act(async () => {
      const found = await api.teamClaimsOf(userId, name);
      setRows(
        await Promise.all(found.map(async (f) => ({ ...f, members: await api.members(f.organization.id) }))),
      );
    });
  }, [name, version]);
  if (rows.length === 0 && !error) return null;
  const reload = () => setVersion((v) => v + 1);
  return (
    <section class="card" aria-labelledby="team-claims-title">
      <h2 id="team-claims-title">Organizations' claims</h2>
      <ErrorNote error={error} />
      <ul class="plain">
        {rows.map(({ organization, claim, members }) => {
          const claimer = members.find((m) => m.user_id === claim?.user_id);
          const mine = claim?.user_id === userId;
          const manages = organization.role === "owner" || organization.role === "admin";
          return (
            <li key={organization.id} class="row">
              <span>
                <a href={`/organizations/${organization.id}`}>{organization.name}</a>: {claim
                  ? `claimed by ${
                    mine ? "you" : claimer?.display_name || claimer?.email?.split("@")[0] || "a member"
                  } since ${formatTime(claim.claimed_at)}`
                  : "not claimed"}
              </span>
              {claim
                ? (mine || manages
                  ? (
                    <ActButton
                      act={act}
                      busy={busy}
                      label={`Release the claim on ${name} in ${organization.name}`}
                      run={async () => {
                        await api.releaseTeamClaim(organization.id, api.normalizedName(name));
                        reload();
                      }}
                    >
                      Release
                    </ActButton>
                  )
                  : null)
                : (
                  <ActButton
                    act={act}
                    busy={busy}
                    label={`Claim ${name} in ${organization.name}`}
                    run={async () => {
                      try {
                        await api.claimTeamDomain(organization.id, api.normalizedName(name));
                      } finally {
                        reload();
                      }
                    }}
                  >
                    Claim
                  </ActButton>
                )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
