/**
 * A tiny History API router: the path is the state; links and navigate() push it. The static server
 * answers every route with index.html (SPA fallback), so a reload or a shared link lands on the screen.
 */
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const listener of listeners) listener();
  globalThis.scrollTo?.(0, 0);
}

addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: location.pathname.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [where, setWhere] = useState(current);
  useEffect(() => {
    const listener = () => setWhere(current());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return where;
}

/** Same-origin link clicks become pushState (a modified click still opens a new tab). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.target || anchor.hasAttribute("download") || anchor.origin !== location.origin) return;
  // In-page links (the skip link) keep the browser's own behaviour: scroll and focus.
  if (anchor.getAttribute("href")?.startsWith("#")) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
