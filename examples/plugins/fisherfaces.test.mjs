/**
 * The plug-in's own test: the library's contract checks, under node:test
 * (`node --test examples/plugins/fisherfaces.test.mjs`); under vitest the same loop
 * is `for (const c of contractChecks("fisherfaces")) it(c.name, c.run)`.
 */
import { test } from "node:test";
import { contractChecks } from "sdspcaan/methods";
import "./fisherfaces.mjs";

for (const check of contractChecks("fisherfaces")) test(check.name, check.run);
