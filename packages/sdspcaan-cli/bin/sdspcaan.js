#!/usr/bin/env node
// The `sdspcaan` command as package.json "bin" names it. This file is committed rather
// than built so that npm links it when it installs the workspace, before `prepare` has
// built dist/ (a bin that does not exist yet is not linked, and `npx sdspcaan` would
// then find nothing in a fresh checkout).
import "../dist/cli/bin.js";
