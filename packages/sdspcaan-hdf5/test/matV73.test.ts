/**
 * The MAT v7.3 / HDF5 reader on files built here with h5wasm: plain HDF5 datasets of
 * every shape and integer width (1-D, scalar, 64-bit, compressed), strings and
 * groups; MATLAB's classes (function handles, objects, char matrices, cells of
 * scalars and of things that are not strings, sparse matrices with and without their
 * column index, empty arrays); the superblock checks; reading after the file closed;
 * and the size limit. Values and messages are checked exactly.
 */
import { readFileSync } from "node:fs";
import h5wasm, { Reference } from "h5wasm";
import { DataFormatError } from "sdspcaan";
import { formatBytes, type RawVariable } from "sdspcaan/formats";
import { withHdf5Variables } from "sdspcaan-hdf5";
import { errorOf, fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it, vi } from "vitest";
import { type H5File, h5File as h5 } from "./helpers/h5File.js";

/** The variables, described and read while the file is open. */
async function variables<T>(
  bytes: Uint8Array,
  use: (vars: RawVariable[], format: string) => T,
  limits = {},
) {
  return withHdf5Variables(
    bytes,
    "k.mat",
    ({ variables: vars, format }) => use(vars, format),
    limits,
  );
}

function find(vars: RawVariable[], name: string): RawVariable {
  const v = vars.find((u) => u.name === name);
  if (v === undefined) throw new Error(`no variable ${name}`);
  return v;
}

function refusal(run: () => unknown): string {
  const err = errorOf(run);
  expect(err).toBeInstanceOf(DataFormatError);
  return err.message;
}

function classed<T extends { create_attribute(name: string, value: unknown): unknown }>(
  d: T,
  cls: string,
): T {
  d.create_attribute("MATLAB_class", cls);
  return d;
}

/** A 1 x n char array of `s` in `group` as MATLAB stores one: UTF-16 codes, dims reversed. */
function charArray(group: ReturnType<H5File["create_group"]>, name: string, s: string) {
  return classed(
    group.create_dataset({
      name,
      data: Uint16Array.from([...s].map((c) => c.charCodeAt(0))),
      shape: [s.length, 1],
      dtype: "<H",
    }),
    "char",
  );
}

describe("plain HDF5 datasets", () => {
  it("reads each shape and width in its own row-major order", async () => {
    const bytes = await h5((f) => {
      f.create_dataset({
        name: "X",
        data: Float32Array.of(1.5, 2, 3, 4, 5, 6),
        shape: [3, 2],
        dtype: "<f",
      });
      f.create_dataset({ name: "v", data: Int8Array.of(-3, 0, 7), shape: [3], dtype: "<b" });
      f.create_dataset({
        name: "u64",
        data: BigUint64Array.of(2n ** 60n, 5n),
        shape: [2],
        dtype: "<Q",
      });
      f.create_dataset({
        name: "i64",
        data: BigInt64Array.of(-(2n ** 53n), 5n),
        shape: [1, 2],
        dtype: "<q",
      });
      f.create_dataset({ name: "sc", data: 2.5 });
      f.create_dataset({ name: "h", data: Int16Array.of(-2, 300), shape: [2], dtype: "<h" });
      f.create_dataset({ name: "i", data: Int32Array.of(-2, 70000), shape: [2], dtype: "<i" });
      f.create_dataset({
        name: "I",
        data: Uint32Array.of(2, 2 ** 32 - 1),
        shape: [2],
        dtype: "<I",
      });
      f.create_dataset({ name: "q0", data: BigInt64Array.of(-7n), shape: [], dtype: "<q" });
      f.create_dataset({
        name: "z",
        data: new Float64Array(1000).fill(0.25),
        shape: [10, 100],
        dtype: "<d",
        chunks: [10, 100],
        compression: 9,
      });
      f.create_group("g");
    });
    await variables(bytes, (vars, format) => {
      expect(format).toBe("hdf5");
      expect(vars.map((v) => [v.name, v.kind, v.className, v.dims, v.complex])).toEqual([
        ["I", "numeric", "<I", [2, 1], false],
        ["X", "numeric", "<f", [3, 2], false],
        ["g", "struct", "group", [1, 1], false],
        ["h", "numeric", "<h", [2, 1], false],
        ["i", "numeric", "<i", [2, 1], false],
        ["i64", "numeric", "<q", [1, 2], false],
        ["q0", "numeric", "<q", [1, 1], false],
        ["sc", "numeric", "<d", [1, 1], false],
        ["u64", "numeric", "<Q", [2, 1], false],
        ["v", "numeric", "<b", [3, 1], false],
        ["z", "numeric", "<d", [10, 100], false],
      ]);
      expect(find(vars, "X").values()).toEqual({
        data: Float64Array.of(1.5, 2, 3, 4, 5, 6),
        order: "C",
      });
      expect(Array.from(find(vars, "v").values().data)).toEqual([-3, 0, 7]);
      expect(Array.from(find(vars, "u64").values().data)).toEqual([2 ** 60, 5]);
      expect(Array.from(find(vars, "i64").values().data)).toEqual([-(2 ** 53), 5]);
      expect(Array.from(find(vars, "sc").values().data)).toEqual([2.5]);
      expect(Array.from(find(vars, "h").values().data)).toEqual([-2, 300]);
      expect(Array.from(find(vars, "i").values().data)).toEqual([-2, 70000]);
      expect(Array.from(find(vars, "I").values().data)).toEqual([2, 2 ** 32 - 1]);
      expect(Array.from(find(vars, "q0").values().data)).toEqual([-7]);
      expect(Array.from(find(vars, "z").values().data)).toEqual(new Array(1000).fill(0.25));
      expect(find(vars, "X").texts()).toBeNull();
      expect(refusal(() => find(vars, "g").values())).toBe(
        "k.mat: variable 'g' is a group (struct), not a numeric array",
      );
      expect(find(vars, "g").texts()).toBeNull();
    });
  });

  it("lists strings as unknown and refuses their values", async () => {
    const bytes = await h5((f) => {
      f.create_dataset({ name: "s", data: ["ab", "cd"] });
    });
    await variables(bytes, (vars) => {
      const s = find(vars, "s");
      expect([s.kind, s.className, s.dims]).toEqual(["unknown", "S", [2, 1]]);
      expect(refusal(() => s.values())).toBe(
        "k.mat: variable 's': HDF5 datatype class 3 is not numeric",
      );
    });
  });

  it("refuses values past maxBytes as float64, and reading after the file is closed", async () => {
    const bytes = await h5((f) => {
      f.create_dataset({
        name: "X",
        data: Uint8Array.of(1, 2, 3, 4, 5, 6),
        shape: [3, 2],
        dtype: "<B",
      });
    });
    await variables(
      bytes,
      (vars) => {
        expect(refusal(() => find(vars, "X").values())).toBe(
          "k.mat: variable 'X': shape [3, 2] needs 48 bytes as float64, more than the 47 bytes limit (maxBytes)",
        );
      },
      { maxBytes: 47 },
    );
    expect(
      await variables(bytes, (vars) => Array.from(find(vars, "X").values().data), { maxBytes: 48 }),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    const kept = await variables(bytes, (vars) => vars);
    expect(refusal(() => find(kept, "X").values())).toBe(
      "k.mat: variable 'X': the HDF5 file is already closed",
    );
  });
});

describe("MATLAB's classes in a v7.3 file", () => {
  it("tells functions, objects, structs and char matrices apart", async () => {
    const bytes = await h5((f) => {
      classed(
        f.create_dataset({ name: "fh", data: Uint8Array.of(1), shape: [1, 1], dtype: "<B" }),
        "function_handle",
      );
      classed(
        f.create_dataset({ name: "ob", data: Uint8Array.of(1), shape: [1, 1], dtype: "<B" }),
        "datetime",
      );
      classed(f.create_group("mp"), "containers.Map");
      classed(f.create_group("st"), "struct");
      // "ab" / "cd" / "ef" as a 3 x 2 char matrix: HDF5 shape [2, 3], column-major codes.
      const codes = ["ab", "cd", "ef"];
      const data = [0, 1].flatMap((j) => codes.map((s) => s.charCodeAt(j)));
      classed(
        f.create_dataset({ name: "ch", data: Uint16Array.from(data), shape: [2, 3], dtype: "<H" }),
        "char",
      );
      classed(
        f.create_dataset({ name: "lg", data: Uint8Array.of(1, 0), shape: [2, 1], dtype: "<B" }),
        "logical",
      );
      classed(
        f.create_dataset({
          name: "u8",
          data: Uint8Array.of(1, 2, 3, 4),
          shape: [2, 2],
          dtype: "<B",
        }),
        "uint8",
      );
    }, true);
    await variables(bytes, (vars, format) => {
      expect(format).toBe("mat-v7.3");
      expect(vars.map((v) => [v.name, v.kind, v.className, v.dims])).toEqual([
        ["ch", "char", "char", [3, 2]],
        ["fh", "function", "function_handle", [1, 1]],
        ["lg", "logical", "logical", [1, 2]],
        ["mp", "object", "containers.Map", [1, 1]],
        ["ob", "object", "datetime", [1, 1]],
        ["st", "struct", "struct", [1, 1]],
        ["u8", "numeric", "uint8", [2, 2]],
      ]);
      expect(find(vars, "ch").texts()).toEqual(["ab", "cd", "ef"]);
      expect(find(vars, "u8").values()).toEqual({ data: Float64Array.of(1, 2, 3, 4), order: "F" });
      expect(find(vars, "u8").texts()).toBeNull();
      expect(refusal(() => find(vars, "mp").values())).toBe(
        "k.mat: variable 'mp' is a containers.Map (object), not a numeric array",
      );
    });
  });

  it("reads cells of strings and scalars as texts, and any other cell as none", async () => {
    const bytes = await h5((f) => {
      const refs = f.create_group("#refs#");
      const a = charArray(refs, "a", "cat").create_reference();
      const n = classed(
        refs.create_dataset({ name: "n", data: Float64Array.of(2.5), shape: [1, 1], dtype: "<d" }),
        "double",
      ).create_reference();
      const two = classed(
        refs.create_dataset({
          name: "two",
          data: Uint16Array.of(97, 98),
          shape: [1, 2],
          dtype: "<H",
        }),
        "char",
      ).create_reference();
      const pair = classed(
        refs.create_dataset({
          name: "pair",
          data: Float64Array.of(1, 2),
          shape: [2, 1],
          dtype: "<d",
        }),
        "double",
      ).create_reference();
      const grp = classed(refs.create_group("grp"), "struct");
      const g = grp.create_reference();
      const cell = (name: string, items: unknown[]) =>
        classed(f.create_dataset({ name, data: items as never, shape: [1, items.length] }), "cell");
      cell("ok", [a, n]);
      cell("rows", [a, two]);
      cell("vec", [a, pair]);
      cell("grp", [a, g]);
      classed(
        f.create_dataset({
          name: "notrefs",
          data: Float64Array.of(1, 2),
          shape: [1, 2],
          dtype: "<d",
        }),
        "cell",
      );
      classed(f.create_dataset({ name: "strs", data: ["ab", "cd"] }), "cell");
      const flag = classed(
        refs.create_dataset({ name: "flag", data: Uint8Array.of(1), shape: [1, 1], dtype: "<B" }),
        "logical",
      ).create_reference();
      cell("lgl", [a, flag]);
      // References that are not a cell: no texts.
      f.create_dataset({ name: "bare", data: [a] as never, shape: [1] });
      classed(f.create_dataset({ name: "one", data: [a] as never, shape: [] }), "cell");
    }, true);
    const kept = await variables(bytes, (vars) => {
      expect(vars.map((v) => [v.name, v.kind])).toEqual([
        ["bare", "unknown"],
        ["grp", "cell"],
        ["lgl", "cell"],
        ["notrefs", "cell"],
        ["ok", "cell"],
        ["one", "cell"],
        ["rows", "cell"],
        ["strs", "cell"],
        ["vec", "cell"],
      ]);
      expect(find(vars, "ok").texts()).toEqual(["cat", "2.5"]);
      expect(find(vars, "one").texts()).toEqual(["cat"]);
      for (const name of ["rows", "vec", "grp", "notrefs", "strs", "lgl", "bare"])
        expect(find(vars, name).texts(), name).toBeNull();
      expect(find(vars, "ok").kind).toBe("cell");
      return vars;
    });
    expect(refusal(() => find(kept, "ok").texts())).toBe(
      "k.mat: variable 'ok': the HDF5 file is already closed",
    );
    const limited = (vars: RawVariable[]) => refusal(() => find(vars, "ok").texts());
    expect(await variables(bytes, limited, { maxBytes: 20 })).toBe(
      "k.mat: variable 'ok' (cell element): shape [3, 1] needs 24 bytes as float64, more than the 20 bytes limit (maxBytes)",
    );
  });

  it("reads '' and [] in a cell as empty texts, the others intact, as MATLAB stores them", async () => {
    const bytes = await h5((f) => {
      const refs = f.create_group("#refs#");
      const str = (name: string, s: string) => charArray(refs, name, s).create_reference();
      // MATLAB stores an empty array as its dimensions [0 0] (uint64) with MATLAB_empty.
      const empty = (name: string, cls: string) => {
        const d = classed(
          refs.create_dataset({ name, data: BigUint64Array.of(0n, 0n), shape: [2], dtype: "<Q" }),
          cls,
        );
        d.create_attribute("MATLAB_empty", Uint8Array.of(1));
        return d.create_reference();
      };
      const [cat, dog] = [str("cat", "cat"), str("dog", "dog")];
      const [text, nothing] = [empty("text", "char"), empty("nothing", "double")];
      const cell = (name: string, items: unknown[]) =>
        classed(f.create_dataset({ name, data: items as never, shape: [items.length, 1] }), "cell");
      cell("withText", [cat, text, dog]);
      cell("withNothing", [cat, nothing, dog]);
      cell("onlyNothing", [nothing, nothing]);
      cell("onlyText", [text]);
      cell("emptyCell", [cat, empty("cellEmpty", "cell")]);
    }, true);
    await variables(bytes, (vars) => {
      expect(find(vars, "withText").texts()).toEqual(["cat", "", "dog"]);
      expect(find(vars, "withNothing").texts()).toEqual(["cat", "", "dog"]);
      expect(find(vars, "onlyText").texts()).toEqual([""]);
      expect(find(vars, "onlyNothing").texts()).toBeNull();
      expect(find(vars, "emptyCell").texts()).toBeNull();
    });
  });

  it("reads a cell kept in #refs#, as MATLAB keeps it, without searching the file for each element", async () => {
    // HDF5 names a referenced object by searching the whole file (H5Rget_name), so a
    // cell of n labels dereferenced one by one took time growing as n^2.
    const labels = Array.from({ length: 200 }, (_, i) => `class${i % 7}`);
    const bytes = await h5((f) => {
      const refs = f.create_group("#refs#");
      const items = labels.map((s, i) => charArray(refs, `e${i}`, s).create_reference());
      classed(
        f.create_dataset({ name: "y", data: items as never, shape: [1, items.length] }),
        "cell",
      );
    }, true);
    const searches = vi.spyOn(h5wasm.File.prototype, "dereference");
    try {
      await variables(bytes, (vars) => expect(find(vars, "y").texts()).toEqual(labels));
      expect(searches).not.toHaveBeenCalled();
    } finally {
      searches.mockRestore();
    }
  });

  it("reads a cell whose references lead outside #refs# (as h5py writes them) too", async () => {
    const bytes = await h5((f) => {
      const refs = f.create_group("#refs#");
      const inside = charArray(refs, "a", "inside").create_reference();
      const elsewhere = charArray(f.create_group("elsewhere"), "b", "outside").create_reference();
      const cell = (name: string, items: unknown[]) =>
        classed(f.create_dataset({ name, data: items as never, shape: [items.length, 1] }), "cell");
      cell("mixed", [inside, elsewhere, inside]);
      cell("outsideOnly", [elsewhere]);
    }, true);
    await variables(bytes, (vars) => {
      expect(find(vars, "mixed").texts()).toEqual(["inside", "outside", "inside"]);
      expect(find(vars, "outsideOnly").texts()).toEqual(["outside"]);
    });
    const noRefsGroup = await h5((f) => {
      const elsewhere = charArray(f.create_group("g"), "b", "text").create_reference();
      classed(f.create_dataset({ name: "c", data: [elsewhere] as never, shape: [1, 1] }), "cell");
      // A dataset named #refs# is no group of references.
      f.create_dataset({ name: "#refs#", data: Float64Array.of(1), shape: [1], dtype: "<d" });
    }, true);
    await variables(noRefsGroup, (vars) => expect(find(vars, "c").texts()).toEqual(["text"]));
  });

  it("refuses a cell element whose reference leads nowhere, in HDF5's words", async () => {
    const bytes = await h5((f) => {
      const nowhere = new Reference(new Uint8Array(8));
      classed(f.create_dataset({ name: "c", data: [nowhere] as never, shape: [1, 1] }), "cell");
    }, true);
    await variables(bytes, (vars) => {
      expect(refusal(() => find(vars, "c").texts())).toBe(
        "k.mat: variable 'c': HDF5 reported an error: unable to open object by token (not a valid object)",
      );
    });
  });

  it("sizes a sparse matrix from its row count and column index, and reads an empty array", async () => {
    const bytes = await h5((f) => {
      const sp = classed(f.create_group("sp"), "double");
      sp.create_attribute("MATLAB_sparse", BigUint64Array.of(5n));
      sp.create_dataset({
        name: "jc",
        data: BigUint64Array.of(0n, 1n, 1n),
        shape: [3],
        dtype: "<Q",
      });
      const bare = classed(f.create_group("bare"), "double");
      bare.create_attribute("MATLAB_sparse", BigUint64Array.of(4n));
      const emp = classed(
        f.create_dataset({ name: "emp", data: BigUint64Array.of(0n, 0n), shape: [2], dtype: "<Q" }),
        "double",
      );
      emp.create_attribute("MATLAB_empty", Uint8Array.of(1));
    }, true);
    await variables(bytes, (vars) => {
      expect(vars.map((v) => [v.name, v.kind, v.className, v.dims])).toEqual([
        ["bare", "sparse", "sparse", [4, 0]],
        ["emp", "numeric", "double", [0, 0]],
        ["sp", "sparse", "sparse", [5, 2]],
      ]);
      expect(refusal(() => find(vars, "sp").values())).toBe(
        "k.mat: variable 'sp' is a sparse matrix; save it as a full (dense) matrix (MATLAB: full(sp))",
      );
      expect(find(vars, "emp").values()).toEqual({ data: new Float64Array(0), order: "F" });
    });
  });
});

describe("what only h5py writes", () => {
  // MATLAB's complex arrays are compound datasets (real, imag), which h5wasm cannot write.
  const bytes = () => new Uint8Array(readFileSync(fixtureFile("hdf5/h5py_v73.mat")));

  it("describes a complex variable and refuses its values; reads a null dataspace as empty", async () => {
    await variables(bytes(), (vars, format) => {
      expect(format).toBe("mat-v7.3");
      expect(vars.map((v) => [v.name, v.kind, v.className, v.dims, v.complex])).toEqual([
        ["half", "numeric", "<e", [2, 1], false],
        ["nothing", "numeric", "<d", [0, 0], false],
        ["odd", "numeric", "<d", [1, 1], false],
        ["z", "numeric", "double", [1, 2], true],
      ]);
      const [, nothing, , z] = vars;
      expect(refusal(() => z.values())).toBe(
        "k.mat: variable 'z' is complex; only real data can be used",
      );
      expect(z.texts()).toBeNull();
      expect(nothing.values()).toEqual({ data: new Float64Array(0), order: "F" });
    });
  });

  it("refuses float16 values in h5wasm's words, and reads on after that", async () => {
    await variables(bytes(), (vars) => {
      expect(refusal(() => find(vars, "half").values())).toBe(
        "k.mat: variable 'half': Float16 not supported",
      );
    });
    expect(await variables(bytes(), (vars) => vars.length)).toBe(4);
  });
});

describe("the superblock, checked before HDF5 sees the file", () => {
  const signature = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
  const superblock = (version: number, length: number, sizes: [number, number]) => {
    const b = new Uint8Array(length);
    b.set(signature);
    b[8] = version;
    const at = version <= 1 ? 13 : 9;
    b[at] = sizes[0];
    b[at + 1] = sizes[1];
    return b;
  };
  const refused = async (bytes: Uint8Array) => {
    const err = await withHdf5Variables(bytes, "s.h5", () => null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFormatError);
    return (err as Error).message;
  };

  it("refuses no signature, an unknown version, a short superblock and odd sizes", async () => {
    expect(await refused(new Uint8Array(100))).toBe(
      "s.h5: not an HDF5 file (no HDF5 signature at byte 0, 512, 1024, ...); a MAT v7.3 file may be truncated",
    );
    expect(await refused(superblock(4, 64, [8, 8]))).toBe(
      "s.h5: unknown HDF5 superblock version 4",
    );
    expect(await refused(superblock(0, 55, [8, 8]))).toBe("s.h5: truncated HDF5 superblock");
    expect(await refused(superblock(1, 55, [8, 8]))).toBe("s.h5: truncated HDF5 superblock");
    expect(await refused(superblock(2, 47, [8, 8]))).toBe("s.h5: truncated HDF5 superblock");
    expect(await refused(superblock(3, 47, [8, 8]))).toBe("s.h5: truncated HDF5 superblock");
    expect(await refused(superblock(0, 56, [3, 8]))).toBe(
      "s.h5: corrupt HDF5 superblock (sizes of offsets 3 and lengths 8)",
    );
    expect(await refused(superblock(1, 56, [8, 3]))).toBe(
      "s.h5: corrupt HDF5 superblock (sizes of offsets 8 and lengths 3)",
    );
    expect(await refused(superblock(2, 48, [8, 16]))).toBe(
      "s.h5: corrupt HDF5 superblock (sizes of offsets 8 and lengths 16)",
    );
    // Sizes 2, 4 and 8 pass the check, and HDF5 itself then refuses the empty rest.
    for (const [version, sizes] of [
      [0, [2, 4]],
      [2, [4, 2]],
    ] as const) {
      expect(await refused(superblock(version, 64, [...sizes] as [number, number]))).toMatch(
        /^s\.h5: opening the HDF5 file: /,
      );
    }
  });
});

describe("what a file declares against what it holds", () => {
  it("refuses a dataset larger than the file can hold, and bounds a deflated one by deflate's ratio, then its chunk index", async () => {
    // Chunked datasets grown after writing: the chunks never written take no room in the file.
    const bytes = await h5((f) => {
      for (const [name, compression] of [
        ["plain", undefined],
        ["deflated", 1],
      ] as const) {
        const d = f.create_dataset({
          name,
          data: Float64Array.of(1, 2, 3, 4),
          shape: [4, 1],
          dtype: "<d",
          maxshape: [null, 1],
          // (Tiny chunks would make HDF5 index 25,000 of them, past the heap budget.)
          chunks: [1000, 1],
          compression,
        });
        d.resize([100_000, 1]);
      }
    });
    await variables(bytes, (vars) => {
      expect(refusal(() => find(vars, "plain").values())).toBe(
        `k.mat: variable 'plain': shape [100000, 1] declares 781.3 KiB of data, more than a ${formatBytes(bytes.length)} file can hold`,
      );
      // Within deflate's ratio, it is refused for the chunks it never wrote, which read as zeros.
      expect(refusal(() => find(vars, "deflated").values())).toBe(
        "k.mat: variable 'deflated': shape [100000, 1] in chunks of [1000, 1] is 100 chunks, but its chunk index lists 1 of them: the file is damaged (HDF5 would read the missing chunks as zeros)",
      );
    });
  });

  it("lists neither dangling soft links nor external links", async () => {
    const bytes = await h5((f) => {
      f.create_dataset({ name: "x", data: Float64Array.of(1), shape: [1, 1], dtype: "<d" });
      f.create_soft_link("/nothing", "dangling");
      f.create_external_link("elsewhere.h5", "/x", "outside");
      f.create_soft_link("/x", "alias");
    });
    expect(await variables(bytes, (vars) => vars.map((v) => v.name))).toEqual(["alias", "x"]);
  });

  it("skips the names starting with '#', where MATLAB keeps what its variables refer to", async () => {
    const bytes = await h5((f) => {
      for (const name of ["#refs#", "#x", "y#"])
        f.create_dataset({ name, data: Float64Array.of(1), shape: [1, 1], dtype: "<d" });
    }, true);
    expect(await variables(bytes, (vars) => vars.map((v) => v.name))).toEqual(["y#"]);
  });
});

describe("MATLAB's attributes", () => {
  it("reads the class from a string, the first of strings or a number, and not from other values", async () => {
    const bytes = await h5((f) => {
      const ds = (name: string, cls: unknown) =>
        f
          .create_dataset({ name, data: Float64Array.of(3), shape: [1, 1], dtype: "<d" })
          .create_attribute("MATLAB_class", cls as never);
      ds("list", ["single", "x"]);
      ds("num", 5);
      f.create_dataset({
        name: "big",
        data: Float64Array.of(3),
        shape: [1, 1],
        dtype: "<d",
      }).create_attribute("MATLAB_class", BigInt64Array.of(7n), [], "<q");
      ds("floats", Float64Array.of(1.5, 2));
    });
    await variables(bytes, (vars) => {
      expect(vars.map((v) => [v.name, v.kind, v.className])).toEqual([
        ["big", "object", "7"],
        ["floats", "numeric", "<d"],
        ["list", "numeric", "single"],
        ["num", "object", "5"],
      ]);
    });
  });

  it("reverses the dimensions of MATLAB's arrays: in a v7.3 file, or classed in a plain one", async () => {
    const build = (f: H5File) => {
      f.create_dataset({ name: "bare", data: Float64Array.of(1, 2, 3, 4, 5, 6), shape: [2, 3] });
      classed(
        f.create_dataset({ name: "cls", data: Float64Array.of(1, 2, 3, 4, 5, 6), shape: [2, 3] }),
        "double",
      );
    };
    const read = (vars: RawVariable[]) =>
      vars.map((v) => [v.name, v.dims, v.values().order, Array.from(v.values().data)]);
    const values = [1, 2, 3, 4, 5, 6];
    expect(await variables(await h5(build, true), read)).toEqual([
      ["bare", [3, 2], "F", values],
      ["cls", [3, 2], "F", values],
    ]);
    expect(await variables(await h5(build), read)).toEqual([
      ["bare", [2, 3], "C", values],
      ["cls", [3, 2], "F", values],
    ]);
  });
});
