/**
 * The paper's datasets shipped in data/: exactly the registry's shipped files (plus
 * UCI's clean1.info and the two text files), each byte-identical to the copy the
 * registry describes, with SHA256SUMS and the README's table saying the same.
 * Fashion-MNIST (`shipped: false`) is found elsewhere (test/io/idx.test.ts).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dataDir, dataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DATASETS } from "#internal/io/registry.js";

const SHIPPED = DATASETS.filter((d) => d.shipped !== false);

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** SHA256SUMS as file -> hash ("<hash>  <file>" lines, as sha256sum writes them). */
function checksumFile(): Map<string, string> {
  const text = readFileSync(dataFile("SHA256SUMS"), "utf8");
  const out = new Map<string, string>();
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    expect(m, `malformed SHA256SUMS line: ${line}`).not.toBeNull();
    out.set((m as RegExpExecArray)[2], (m as RegExpExecArray)[1]);
  }
  return out;
}

describe("data/", () => {
  it("holds the registry's files, clean1.info, README.md and SHA256SUMS, nothing else", () => {
    const expected = [
      ...SHIPPED.map((d) => d.file),
      "clean1.info",
      "README.md",
      "SHA256SUMS",
    ].sort();
    expect(readdirSync(dataDir()).sort()).toEqual(expected);
  });

  it("every data file matches the registry's sha256 and SHA256SUMS", () => {
    const sums = checksumFile();
    expect([...sums.keys()].sort()).toEqual([...SHIPPED.map((d) => d.file), "clean1.info"].sort());
    for (const [file, hash] of sums) expect(sha256(dataFile(file)), file).toBe(hash);
    for (const d of SHIPPED) expect(sums.get(d.file), d.name).toBe(d.sha256);
  });

  it("README.md lists every file with its checksum", () => {
    const readme = readFileSync(dataFile("README.md"), "utf8");
    for (const [file, hash] of checksumFile()) {
      const row = readme.split("\n").find((l) => l.includes(`\`${file}\``) && l.includes(hash));
      expect(row, `no README row with ${file} and its sha256`).toBeDefined();
    }
  });
});
