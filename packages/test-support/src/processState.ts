/**
 * The guard of the test files that share a module graph (each package's "shared"
 * vitest project, `isolate: false`): a file that changes process-wide state and leaves
 * it changed would change what every later file in the same worker runs. The shared
 * projects run a setup file that calls `guardProcessState` with their package's probes:
 * it reads the state before the file's tests and after all of them (its afterAll runs
 * last, after the file's own), and when anything differs it puts the state back and
 * fails that file, naming what it left changed. So a file may change the state as long
 * as it restores it (afterEach / afterAll, or try / finally), and shares a worker.
 *
 * What it reads besides the probes: the environment, the working directory,
 * process.exitCode, the listeners of process signals and events, the values of the
 * globals that existed before the file (vi.stubGlobal), vi's spies on the objects below
 * (vi.spyOn), fake timers.
 */
import { afterAll, vi } from "vitest";

/** One piece of process-wide state a package's code keeps (kernel backend, threads, ...). */
export interface ProcessProbe {
  /** What it is, for the message. */
  readonly name: string;
  /** Its value now, comparable with JSON (or by identity when `identity` is set). */
  read(): unknown;
  /** Sets it back to a value `read` returned. */
  restore(value: unknown): void;
  /** Compare with Object.is rather than as JSON (e.g. an installed function). */
  readonly identity?: boolean;
}

/** The process events whose listener counts must come back. */
const EVENTS = [
  "exit",
  "beforeExit",
  "SIGINT",
  "SIGTERM",
  "uncaughtException",
  "unhandledRejection",
  "warning",
] as const;

/** The objects whose methods tests spy on (vi.spyOn). */
function spiedObjects(): Array<[string, object]> {
  return [
    ["console", console],
    ["process", process],
    ["process.stdout", process.stdout],
    ["process.stderr", process.stderr],
    ["Math", Math],
    ["Date", Date],
    ["JSON", JSON],
    ["performance", performance],
  ];
}

/** Marks a property of globalThis defined by a getter (its value is not read). */
const ACCESSOR = Symbol("accessor");

/**
 * The own properties of globalThis by name: their values, or ACCESSOR for getters
 * (Node defines some globals lazily, by a getter that turns into a value when read).
 */
function globalValues(): Map<PropertyKey, unknown> {
  const out = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(globalThis)) {
    // vitest's own per-file state.
    if (typeof key === "string" && key.startsWith("__vitest")) continue;
    const d = Object.getOwnPropertyDescriptor(globalThis, key);
    if (d !== undefined) out.set(key, "value" in d ? d.value : ACCESSOR);
  }
  return out;
}

/** The methods of `object` that are vi spies now. */
function spies(name: string, object: object): string[] {
  const out: string[] = [];
  for (const key of Reflect.ownKeys(object)) {
    const d = Object.getOwnPropertyDescriptor(object, key);
    if (d !== undefined && "value" in d && vi.isMockFunction(d.value)) {
      out.push(`${name}.${String(key)}`);
    }
  }
  return out;
}

/** The state `guardProcessState` compares (processStateSnapshot). */
export interface Snapshot {
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
  readonly exitCode: typeof process.exitCode;
  readonly listeners: number[];
  readonly globals: Map<PropertyKey, unknown>;
  readonly probes: unknown[];
}

function snapshot(probes: readonly ProcessProbe[]): Snapshot {
  return {
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    listeners: EVENTS.map((e) => process.listenerCount(e)),
    globals: globalValues(),
    probes: probes.map((p) => p.read()),
  };
}

const same = (a: unknown, b: unknown, identity: boolean | undefined): boolean =>
  identity ? Object.is(a, b) : JSON.stringify(a) === JSON.stringify(b);

/**
 * What differs between `before` and now, each difference set back as it is found:
 * one line per difference, empty when the state is as it was.
 */
export function restoreProcessState(before: Snapshot, probes: readonly ProcessProbe[]): string[] {
  const changed: string[] = [];
  const env = process.env;
  for (const key of new Set([...Object.keys(before.env), ...Object.keys(env)])) {
    if (env[key] === before.env[key]) continue;
    changed.push(
      `process.env.${key} (${JSON.stringify(before.env[key])} -> ${JSON.stringify(env[key])})`,
    );
    if (before.env[key] === undefined) delete env[key];
    else env[key] = before.env[key];
  }
  if (process.cwd() !== before.cwd) {
    changed.push(`the working directory (${process.cwd()})`);
    process.chdir(before.cwd);
  }
  if (process.exitCode !== before.exitCode) {
    changed.push(`process.exitCode (${String(process.exitCode)})`);
    process.exitCode = before.exitCode;
  }
  EVENTS.forEach((event, i) => {
    const n = process.listenerCount(event);
    if (n !== before.listeners[i]) {
      changed.push(`the process's "${event}" listeners (${before.listeners[i]} -> ${n})`);
    }
  });
  // Globals that existed must keep their values; new ones are left alone, as a module
  // loaded for the first time may keep a singleton there (e.g. signal-exit's emitter).
  const now = globalValues();
  for (const [key, was] of before.globals) {
    // A lazy global read for the first time is the same global.
    if (was === ACCESSOR ? now.has(key) : now.has(key) && Object.is(now.get(key), was)) continue;
    changed.push(`globalThis.${String(key)}`);
    if (was !== ACCESSOR) (globalThis as Record<PropertyKey, unknown>)[key] = was;
  }
  const leftSpies = spiedObjects().flatMap(([name, object]) => spies(name, object));
  if (leftSpies.length > 0) changed.push(`vi spies on ${leftSpies.join(", ")}`);
  vi.restoreAllMocks();
  if (vi.isFakeTimers()) {
    changed.push("fake timers (vi.useFakeTimers)");
    vi.useRealTimers();
  }
  probes.forEach((probe, i) => {
    const value = probe.read();
    if (same(value, before.probes[i], probe.identity)) return;
    changed.push(
      probe.identity
        ? probe.name
        : `${probe.name} (${JSON.stringify(before.probes[i])} -> ${JSON.stringify(value)})`,
    );
    probe.restore(before.probes[i]);
  });
  return changed;
}

/**
 * Reads the process-wide state now and, after the calling test file's tests, fails the
 * file if it did not leave that state as it found it (see the module comment). Call it
 * from a setup file, once per test file.
 */
export function guardProcessState(probes: readonly ProcessProbe[]): void {
  const before = snapshot(probes);
  afterAll(() => {
    const changed = restoreProcessState(before, probes);
    if (changed.length > 0) {
      throw new Error(
        `This test file left process-wide state changed, which the next files in its worker would see: ${changed.join("; ")}. Restore it (afterEach / afterAll, or try / finally), or list the file in its package's ISOLATED_TEST_FILES if it cannot.`,
      );
    }
  });
}

/** The state `guardProcessState` compares, read now (for checking the guard itself). */
export function processStateSnapshot(probes: readonly ProcessProbe[]): Snapshot {
  return snapshot(probes);
}
