/** What the shell hands every signed-in screen: the session, the account overview and how to refresh it. */
import type { Session } from "@supabase/supabase-js";
import type { AccountOverview } from "./data/types.ts";

export interface ScreenProps {
  session: Session;
  overview: AccountOverview | null;
  refreshOverview: () => void;
}
