/// <reference lib="dom" />
/** The app's entry: reads config.json, connects supabase-js, renders the shell. */
import { render } from "preact";
import { loadConfig } from "./config.ts";
import { connect } from "./data/api.ts";
import { App } from "./app.tsx";
import { FramedNotice, isFramed } from "./ui/framed.tsx";
import { applyStoredTheme } from "./ui/theme.tsx";

const root = document.getElementById("app")!;
applyStoredTheme();
try {
  if (isFramed()) render(<FramedNotice />, root);
  else {
    connect(await loadConfig());
    render(<App />, root);
  }
} catch (error) {
  root.innerHTML = "";
  const note = document.createElement("p");
  note.setAttribute("role", "alert");
  note.className = "note error";
  note.textContent = `The app could not start: ${(error as Error).message}`;
  root.append(note);
}
