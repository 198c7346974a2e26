/** The shell: session, the plan/quota bar on every signed-in screen, navigation; the routes are in routes.tsx. */
import type { Session } from "@supabase/supabase-js";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import * as api from "./data/api.ts";
import type { AccountOverview } from "./data/types.ts";
import { navigate, onLinkClick, useLocation } from "./router.ts";
import { ErrorNote, errorOf } from "./ui/components.tsx";
import type { AppError } from "./data/errors.ts";
import type { ScreenProps } from "./screen_props.ts";
import { ThemeSwitch } from "./ui/theme.tsx";
import { localPath, withoutLinkParameters } from "./data/auth_links.ts";
import { isCurrent, navigation, routeOf, titleOf } from "./routes.tsx";

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
  const route = routeOf(path);
  let screen;
  if (route?.access === "any") screen = route.render({ path, query: where.query, session });
  else if (!session || route?.access === "signed-out") {
    if (session) {
      queueMicrotask(() => navigate(localPath(where.query.get("next")), true));
      return null;
    }
    screen = route?.access === "signed-out"
      ? route.render({ path, query: where.query, session })
      : routeOf("/sign-in")!.render({
        path,
        query: new URLSearchParams({ next: withoutLinkParameters(path, location.search) }),
        session,
      });
  } else if (route) {
    const props: ScreenProps = { session, overview, refreshOverview };
    screen = route.render({ path, query: where.query, session, screen: props });
  } else {
    screen = (
      <section>
        <h1>Page not found</h1>
        <p>
          <a href="/">Back to your watchlist</a>
        </p>
      </section>
    );
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
                {navigation.map(([href, label]) => (
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
        <ThemeSwitch />
      </header>
      {session && overview ? <PlanBar overview={overview} /> : null}
      <ErrorNote error={session ? overviewError : null} />
      <main id="main" tabIndex={-1}>{screen}</main>
    </div>
  );
}
