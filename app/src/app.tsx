/** The shell: session, the plan/quota bar on every signed-in screen, navigation and the routes. */
import type { Session } from "@supabase/supabase-js";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import * as api from "./data/api.ts";
import type { AccountOverview } from "./data/types.ts";
import { navigate, onLinkClick, useLocation } from "./router.ts";
import { ErrorNote, errorOf } from "./ui/components.tsx";
import type { AppError } from "./data/errors.ts";
import { SignIn } from "./screens/sign_in.tsx";
import { ResetPassword } from "./screens/reset_password.tsx";
import { Watchlist } from "./screens/watchlist.tsx";
import { DomainPage } from "./screens/domain.tsx";
import { Alerts } from "./screens/alerts.tsx";
import { Developer } from "./screens/developer.tsx";
import { Organizations } from "./screens/organizations.tsx";
import { Account } from "./screens/account.tsx";
import { Consent } from "./screens/consent.tsx";
import { AcceptInvite } from "./screens/accept_invite.tsx";
import { EmailLink } from "./screens/email_link.tsx";

export interface ScreenProps {
  session: Session;
  overview: AccountOverview | null;
  refreshOverview: () => void;
}

const nav = [
  ["/", "Watchlist"],
  ["/alerts", "Alerts"],
  ["/developer", "Developer API"],
  ["/organizations", "Organizations"],
  ["/account", "Account"],
] as const;

/** Screens that work without a session. */
const publicPaths = new Set(["/sign-in", "/reset-password"]);

function PlanBar({ overview }: { overview: AccountOverview }) {
  const limit = overview.daily_request_limit;
  return (
    <p class="plan-bar" aria-label="Plan and usage">
      <span>
        Plan <strong>{overview.plan}</strong>
      </span>
      <span>
        Watchlist <strong>{overview.watchlist_used}</strong> of {overview.watchlist_quota}
      </span>
      {overview.api_access
        ? (
          <span>
            API today <strong>{overview.requests_today}</strong>
            {limit === null ? " (no daily limit)" : ` of ${limit}`}
          </span>
        )
        : null}
    </p>
  );
}

export function App() {
  const where = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [overview, setOverview] = useState<AccountOverview | null>(null);
  const [overviewError, setOverviewError] = useState<AppError | null>(null);

  useEffect(() => {
    api.currentSession().then(setSession, () => setSession(null));
    return api.onSessionChange((next, event) => {
      setSession(next);
      if (event === "PASSWORD_RECOVERY") navigate("/reset-password", true);
    });
  }, []);

  const refreshOverview = useCallback(() => {
    api.accountOverview().then((value) => {
      setOverview(value);
      setOverviewError(null);
    }, (error) => setOverviewError(errorOf(error)));
  }, []);

  const userId = session?.user.id;
  useEffect(() => {
    if (userId) refreshOverview();
    else setOverview(null);
  }, [userId]);

  useEffect(() => {
    document.title = `${titleOf(where.path)} · Domain Watchlist`;
  }, [where.path]);

  // After a navigation (not the first load), focus moves to the new screen's content, so keyboard and
  // screen reader users start there rather than where the old screen's control was.
  const firstLoad = useRef(true);
  useEffect(() => {
    if (firstLoad.current) {
      firstLoad.current = false;
      return;
    }
    document.getElementById("main")?.focus();
  }, [where]);

  if (session === undefined) {
    return (
      <main id="main">
        <p aria-busy="true">Loading…</p>
      </main>
    );
  }

  const path = where.path;
  let screen;
  if (path === "/oauth/consent") screen = <Consent session={session} query={where.query} />;
  else if (path === "/accept-invite") screen = <AcceptInvite session={session} query={where.query} />;
  else if (path === "/email-link") screen = <EmailLink query={where.query} />;
  else if (path === "/reset-password") screen = <ResetPassword session={session} />;
  else if (!session || path === "/sign-in") {
    if (session && path === "/sign-in") {
      queueMicrotask(() => navigate(where.query.get("next") || "/", true));
      return null;
    }
    screen = (
      <SignIn next={publicPaths.has(path) ? where.query.get("next") ?? "/" : path + location.search} />
    );
  } else {
    const props: ScreenProps = { session, overview, refreshOverview };
    if (path === "/") screen = <Watchlist {...props} />;
    else if (path.startsWith("/domains/")) {
      screen = <DomainPage {...props} name={decodeURIComponent(path.slice("/domains/".length))} />;
    } else if (path === "/alerts") screen = <Alerts {...props} />;
    else if (path === "/developer") screen = <Developer {...props} />;
    else if (path === "/organizations") screen = <Organizations {...props} />;
    else if (path === "/account") screen = <Account {...props} />;
    else {
      screen = (
        <section>
          <h1>Page not found</h1>
          <p>
            <a href="/">Back to your watchlist</a>
          </p>
        </section>
      );
    }
  }

  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="/">Domain Watchlist</a>
        {session
          ? (
            <nav aria-label="Main">
              <ul>
                {nav.map(([href, label]) => (
                  <li key={href}>
                    <a href={href} aria-current={isCurrent(path, href) ? "page" : undefined}>{label}</a>
                  </li>
                ))}
                <li>
                  <button
                    type="button"
                    class="link"
                    onClick={async () => {
                      await api.signOut().catch(() => {});
                      navigate("/sign-in");
                    }}
                  >
                    Sign out
                  </button>
                </li>
              </ul>
            </nav>
          )
          : null}
      </header>
      {session && overview ? <PlanBar overview={overview} /> : null}
      <ErrorNote error={session ? overviewError : null} />
      <main id="main" tabIndex={-1}>{screen}</main>
    </div>
  );
}

function isCurrent(path: string, href: string): boolean {
  return href === "/" ? path === "/" || path.startsWith("/domains/") : path.startsWith(href);
}

function titleOf(path: string): string {
  if (path.startsWith("/domains/")) return decodeURIComponent(path.slice(9));
  const found = nav.find(([href]) => href === path);
  if (found) return found[1];
  return ({
    "/sign-in": "Sign in",
    "/oauth/consent": "Connect an assistant",
    "/accept-invite": "Accept an invitation",
    "/reset-password": "Choose a new password",
  } as Record<string, string>)[path] ?? "Domain Watchlist";
}
