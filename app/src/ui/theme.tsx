/**
 * Light and dark themes: the system's choice (`prefers-color-scheme`) until the person picks one with the
 * "Dark mode" switch, which is remembered in this browser (localStorage). The colours are in styles.css
 * (`:root[data-theme=…]`).
 */
import { useEffect, useState } from "preact/hooks";

const storageKey = "domain-watchlist-theme";
type Theme = "light" | "dark";

function stored(): Theme | null {
  try {
    const value = localStorage.getItem(storageKey);
    return value === "light" || value === "dark" ? value : null;
  } catch {
    return null;
  }
}

function systemTheme(): Theme {
  return globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** Sets the remembered theme on the page (none: the system's). Called once before the first render. */
export function applyStoredTheme(): void {
  const theme = stored();
  if (theme) document.documentElement.dataset.theme = theme;
}

export function ThemeSwitch() {
  const [dark, setDark] = useState(() => (stored() ?? systemTheme()) === "dark");
  // Until the person picks one, the switch follows the system's choice as it changes.
  useEffect(() => {
    const query = globalThis.matchMedia?.("(prefers-color-scheme: dark)");
    const follow = () => {
      if (!stored()) setDark(systemTheme() === "dark");
    };
    query?.addEventListener("change", follow);
    return () => query?.removeEventListener("change", follow);
  }, []);
  return (
    <button
      type="button"
      class="link theme-switch"
      aria-pressed={dark}
      onClick={() => {
        const next: Theme = dark ? "light" : "dark";
        document.documentElement.dataset.theme = next;
        try {
          localStorage.setItem(storageKey, next);
        } catch {
          // Not remembered (storage off); the page still switches.
        }
        setDark(!dark);
      }}
    >
      Dark mode
    </button>
  );
}
