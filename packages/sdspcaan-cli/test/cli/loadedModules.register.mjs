// Registers loadedModules.hooks.mjs (node --import this file).
import { register } from "node:module";

register("./loadedModules.hooks.mjs", import.meta.url);
