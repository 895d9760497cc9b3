/**
 * The layout of the repository as rules: `npm run lint:deps` (dependency-cruiser)
 * checks every import of the packages' sources and tests, scripts/, bench/ and the
 * root test/ against them, and `npm test` runs it with the lint. docs/ARCHITECTURE.md
 * explains the layers these rules hold in place.
 */

const LIB = "^packages/sdspcaan/src/";
/** The library's public entries: what other packages may import (tsconfig.json's paths). */
const LIB_ENTRIES =
  "^packages/sdspcaan/src/(index|node)\\.ts$|^packages/sdspcaan/src/(formats|methods|worker)/index\\.ts$";
const OTHER_ENTRIES =
  "^packages/sdspcaan-hdf5/src/index\\.ts$|^packages/sdspcaan-cli/src/index\\.ts$|^packages/test-support/src/index\\.ts$";
const CLI = "^packages/sdspcaan-cli/src/";
/** The CLI's folders and files that run in the browser (the playground page and worker, and what they import). */
const CLI_BROWSER = `${CLI}(protocol|stats|playground)/|${CLI}reports/[^/]+\\.ts$|${CLI}palette\\.ts$`;
/** Node-only code of the CLI: files, processes, rendering, the command line. */
const CLI_NODE_ONLY = `${CLI}(cli|io|plot|runner|cluster)/|${CLI}index\\.ts$|\\.node\\.ts$`;

/** A library folder may import the library only from `allowed` (folders under src/). */
function layer(name, folder, allowed, comment) {
  return {
    name,
    comment,
    severity: "error",
    from: { path: `${LIB}${folder}/` },
    to: { path: LIB, pathNot: `${LIB}(${[folder, ...allowed].join("|")})/` },
  };
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "No import cycle anywhere, type-only imports included: a cycle has no bottom to read it from.",
      severity: "error",
      from: {},
      to: { circular: true },
    },

    // The library: browser-safe, no dependencies, layers that run one way.
    {
      name: "library-imports-no-package",
      comment:
        "The library (packages/sdspcaan/src) imports no other package: it has no runtime dependencies.",
      severity: "error",
      from: { path: LIB },
      to: { pathNot: LIB, dependencyTypesNot: ["core"] },
    },
    {
      name: "library-node-only-in-node-files",
      comment:
        "The library runs in browsers: a node: module is imported only by a *.node.ts file, and only *.node.ts files and the Node entries import those.",
      severity: "error",
      from: {
        path: LIB,
        pathNot: ["\\.node\\.ts$", `${LIB}node\\.ts$`, `${LIB}threads/`],
      },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "library-browser-files-import-no-node-file",
      comment:
        "A browser-safe library file (the sdspcaan, formats, methods and worker entries and all they import) imports no *.node.ts file, no Node entry and nothing of threads/ (Node's worker_threads).",
      severity: "error",
      from: {
        path: LIB,
        pathNot: ["\\.node\\.ts$", `${LIB}(node|index\\.node)\\.ts$`, `${LIB}threads/`],
      },
      to: { path: ["\\.node\\.ts$", `${LIB}(node|index\\.node)\\.ts$`, `${LIB}threads/`] },
    },
    {
      name: "library-imports-no-entry",
      comment:
        "The entries (index.ts, node.ts, index.node.ts, */index.ts) gather the library; no module of it imports them.",
      severity: "error",
      from: { path: LIB, pathNot: `${LIB}[^/]+\\.ts$` },
      to: { path: `${LIB}([^/]+\\.ts|(formats|methods|worker)/index\\.ts)$` },
    },
    layer(
      "core-is-the-ground",
      "core",
      [],
      "core/ (matrices, errors, options, random numbers) imports nothing of the library.",
    ),
    layer(
      "formats-on-core",
      "formats",
      ["core"],
      "formats/ (data files from bytes) builds on core/ alone.",
    ),
    layer("linalg-on-core", "linalg", ["core"], "linalg/ builds on core/ alone."),
    layer(
      "graph-on-linalg",
      "graph",
      ["core", "linalg"],
      "graph/ (neighbours, adaptive graphs) builds on linalg/.",
    ),
    layer(
      "classify-on-linalg",
      "classify",
      ["core", "linalg"],
      "classify/ (1-NN, metrics) builds on linalg/.",
    ),
    layer(
      "data-on-linalg",
      "data",
      ["core", "linalg"],
      "data/ (splits, preprocessing, synthetic data) builds on linalg/.",
    ),
    layer(
      "methods-on-the-rest",
      "methods",
      ["core", "linalg", "graph", "classify", "data", "formats"],
      "methods/ builds on everything below it; never on worker/ or threads/.",
    ),
    layer(
      "worker-on-methods",
      "worker",
      ["core", "methods", "linalg", "threads"],
      "worker/ (fits off the main thread) builds on methods/; its Node threads start with the caller's kernel settings (linalg/, threads/).",
    ),
    layer(
      "threads-on-linalg",
      "threads",
      ["core", "linalg", "graph"],
      "threads/ (Node's helper threads for the kernels) builds on linalg/ and graph/.",
    ),

    // Inside linalg/: basic <- kernels/ <- orthogonalize, sparse <- eigen/, cholesky, sandwich <- svd <- generalizedEigen.
    {
      name: "linalg-kernels-at-the-bottom",
      comment: "linalg/kernels/ (GEMM, wasm, native) imports nothing of linalg/ but basic.ts.",
      severity: "error",
      from: { path: `${LIB}linalg/kernels/` },
      to: { path: `${LIB}linalg/`, pathNot: [`${LIB}linalg/kernels/`, `${LIB}linalg/basic\\.ts$`] },
    },
    {
      name: "linalg-block-kernels-below-eigen",
      comment:
        "orthogonalize.ts and sparse.ts sit on the kernels, below the eigensolvers (SVQB, which needs one, is in eigen/).",
      severity: "error",
      from: { path: `${LIB}linalg/(orthogonalize|sparse)\\.ts$` },
      to: { path: `${LIB}linalg/`, pathNot: [`${LIB}linalg/kernels/`, `${LIB}linalg/basic\\.ts$`] },
    },
    {
      name: "linalg-eigen-below-svd",
      comment:
        "eigen/ imports neither the SVD nor what is built on it (generalizedEigen.ts), nor sparse products.",
      severity: "error",
      from: { path: `${LIB}linalg/eigen/` },
      to: { path: `${LIB}linalg/(svd|generalizedEigen|sandwich|sparse|cholesky)\\.ts$` },
    },
    {
      name: "linalg-svd-below-generalized",
      comment: "svd.ts is below generalizedEigen.ts, which uses it.",
      severity: "error",
      from: { path: `${LIB}linalg/svd\\.ts$` },
      to: { path: `${LIB}linalg/generalizedEigen\\.ts$` },
    },

    // The other packages reach the library, and each other, through their entries.
    {
      name: "packages-through-public-entries",
      comment:
        "The CLI, sdspcaan-hdf5 and test-support reach the library only through its public entries (sdspcaan, sdspcaan/methods, sdspcaan/formats, sdspcaan/node, sdspcaan/worker).",
      severity: "error",
      from: { path: "^packages/(sdspcaan-cli|sdspcaan-hdf5|test-support)/src/" },
      to: { path: LIB, pathNot: LIB_ENTRIES },
    },
    {
      name: "packages-reach-other-packages-through-entries",
      comment: "No package's source imports another package's src/ but its entry.",
      severity: "error",
      from: { path: "^packages/([^/]+)/src/" },
      to: {
        path: "^packages/[^/]+/src/",
        pathNot: ["^packages/$1/src/", LIB_ENTRIES, OTHER_ENTRIES],
      },
    },

    // The CLI's browser-safe part: the playground page and what it shares with the reports.
    {
      name: "cli-browser-part-imports-no-node",
      comment:
        "protocol/, stats/, reports/*.ts (not *.node.ts) and the playground run in the browser: no node: module.",
      severity: "error",
      from: { path: CLI_BROWSER, pathNot: "\\.node\\.ts$" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "cli-browser-part-imports-nothing-node-only",
      comment:
        "The browser-safe part of the CLI imports no Node-only file: not cli/, io/, plot/, runner/, cluster/, a *.node.ts file or the library's sdspcaan/node.",
      severity: "error",
      from: { path: CLI_BROWSER, pathNot: "\\.node\\.ts$" },
      to: { path: [CLI_NODE_ONLY, `${LIB}node\\.ts$`, `${LIB}threads/`] },
    },

    {
      name: "browser-parts-import-only-browser-packages",
      comment:
        "sdspcaan-hdf5 and the CLI's browser-safe part import no node: module and no package but the workspace's and h5wasm (which has a browser build).",
      severity: "error",
      from: { path: ["^packages/sdspcaan-hdf5/src/", CLI_BROWSER], pathNot: "\\.node\\.ts$" },
      to: {
        dependencyTypes: [
          "core",
          "npm",
          "npm-dev",
          "npm-optional",
          "npm-peer",
          "npm-no-pkg",
          "npm-unknown",
        ],
        pathNot: "node_modules/h5wasm/",
      },
    },

    // Tests live in their package and reach it through its entries or its #internal/* map.
    {
      name: "tests-reach-no-other-package-src",
      comment:
        "A package's tests import another package only through its entries (sdspcaan, sdspcaan/formats, ..., sdspcaan-test-support).",
      severity: "error",
      from: { path: "^packages/([^/]+)/test/" },
      to: {
        path: "^packages/[^/]+/src/",
        pathNot: ["^packages/$1/src/", LIB_ENTRIES, OTHER_ENTRIES],
      },
    },
    {
      name: "tests-reach-their-src-through-internal",
      comment:
        "A package's tests reach its own modules through the package's #internal/* imports map, never ../../src paths.",
      severity: "error",
      from: { path: "^packages/([^/]+)/test/" },
      to: {
        path: "^packages/$1/src/",
        dependencyTypesNot: [
          "aliased-subpath-import",
          "aliased-tsconfig-paths",
          "aliased-tsconfig",
        ],
      },
    },
    {
      name: "package-tests-stay-in-packages",
      comment:
        "A package's tests reach code through the packages' entries or their own #internal/* map, never the repository's scripts/, bench/ or test/ (a check of those is a project check, under test/project).",
      severity: "error",
      from: { path: "^packages/[^/]+/test/" },
      to: { path: "^(scripts|bench|test)/" },
    },
    {
      name: "root-tests-reach-library-through-entries",
      comment:
        "The root test/ (end-to-end and project checks, which drive the CLI) reaches the library through its public entries, as the CLI does.",
      severity: "error",
      from: { path: "^test/" },
      to: { path: LIB, pathNot: LIB_ENTRIES },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^packages/[^/]+/dist/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default"],
      extensions: [".ts", ".js", ".mjs", ".cjs"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
