/** Registers every sub-command. Each command module exports one `register*` function. */
import type { Command } from "commander";

export function registerCommands(_program: Command): void {
  // Sub-commands are added here as they are implemented.
}
