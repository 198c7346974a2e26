/**
 * The route table: every path the app answers, its title, whether it is in the main navigation, who may
 * open it, and its screen. The shell (app.tsx) only looks routes up here; screens import nothing from it.
 */
import type { Session } from "@supabase/supabase-js";
import type { JSX } from "preact";
import type { ScreenProps } from "./screen_props.ts";
import { localPath } from "./data/auth_links.ts";
import { SignIn } from "./screens/sign_in.tsx";
import { ResetPassword } from "./screens/reset_password.tsx";
import { Watchlist } from "./screens/watchlist.tsx";
import { DomainPage } from "./screens/domain.tsx";
import { Alerts } from "./screens/alerts.tsx";
import { Developer } from "./screens/developer.tsx";
import { Organizations } from "./screens/organizations.tsx";
import { TeamScreen } from "./screens/team.tsx";
import { Account } from "./screens/account.tsx";
import { Consent } from "./screens/consent.tsx";
import { AcceptInvite } from "./screens/accept_invite.tsx";
import { EmailLink } from "./screens/email_link.tsx";

/** What a route's screen gets: the session (null when signed out), the query, and for signed-in screens more. */
export interface RouteInput {
  path: string;
  query: URLSearchParams;
  session: Session | null;
  /** Set for `signed-in` routes only. */
  screen?: ScreenProps;
}

export interface Route {
  /** The exact path, or a prefix ending in `/` (`/domains/`). */
  path: string;
  title: string | ((path: string) => string);
  /** The label in the main navigation, when the route is there. */
  nav?: string;
  /**
   * `signed-in`: needs a session (signed out, the sign-in form shows, then comes back); `any`: renders with
   * or without one (it signs in on its own page); `signed-out`: the sign-in page itself.
   */
  access: "signed-in" | "any" | "signed-out";
  render: (input: RouteInput) => JSX.Element;
}

const domainName = (path: string) => decodeURIComponent(path.slice("/domains/".length));

export const routes: Route[] = [
  {
    path: "/",
    title: "Watchlist",
    nav: "Watchlist",
    access: "signed-in",
    render: (i) => <Watchlist {...i.screen!} />,
  },
  {
    path: "/domains/",
    title: domainName,
    access: "signed-in",
    render: (i) => <DomainPage {...i.screen!} name={domainName(i.path)} />,
  },
  {
    path: "/alerts",
    title: "Alerts",
    nav: "Alerts",
    access: "signed-in",
    render: (i) => <Alerts {...i.screen!} />,
  },
  {
    path: "/developer",
    title: "Developer API",
    nav: "Developer API",
    access: "signed-in",
    render: (i) => <Developer {...i.screen!} />,
  },
  {
    path: "/organizations",
    title: "Organizations",
    nav: "Organizations",
    access: "signed-in",
    render: (i) => <Organizations {...i.screen!} />,
  },
  {
    path: "/organizations/",
    title: "Organization",
    access: "signed-in",
    render: (i) => (
      <TeamScreen
        {...i.screen!}
        organizationId={decodeURIComponent(i.path.slice("/organizations/".length))}
      />
    ),
  },
  {
    path: "/account",
    title: "Account",
    nav: "Account",
    access: "signed-in",
    render: (i) => <Account {...i.screen!} />,
  },
  {
    path: "/sign-in",
    title: "Sign in",
    access: "signed-out",
    render: (i) => <SignIn next={localPath(i.query.get("next"))} />,
  },
  {
    path: "/reset-password",
    title: "Choose a new password",
    access: "any",
    render: (i) => <ResetPassword session={i.session} />,
  },
  {
    path: "/oauth/consent",
    title: "Connect an assistant",
    access: "any",
    render: (i) => <Consent session={i.session} query={i.query} />,
  },
  {
    path: "/accept-invite",
    title: "Accept an invitation",
    access: "any",
    render: (i) => <AcceptInvite session={i.session} query={i.query} />,
  },
  {
    path: "/email-link",
    title: "Email alerts",
    access: "any",
    render: (i) => <EmailLink query={i.query} />,
  },
];

/** The route a path opens, if any. */
export function routeOf(path: string): Route | undefined {
  return routes.find((route) =>
    route.path.endsWith("/") && route.path !== "/" ? path.startsWith(route.path) : path === route.path
  );
}

/** The main navigation, in table order. */
export const navigation = routes.filter((route) => route.nav).map((route) =>
  [route.path, route.nav!] as const
);

/** The document title of a path. */
export function titleOf(path: string): string {
  const route = routeOf(path);
  if (!route) return "Domain Watchlist";
  return typeof route.title === "string" ? route.title : route.title(path);
}

/** Whether a navigation link is the current page (a name's page belongs to the watchlist). */
export function isCurrent(path: string, href: string): boolean {
  return href === "/" ? path === "/" || path.startsWith("/domains/") : path.startsWith(href);
}
