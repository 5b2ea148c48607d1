// The command line of the crash benchmarks (bench/crash.mjs, bench/crash-products.mjs) and
// bench/ab-stops.mjs: numeric options by flag, --root, --base and --json as paths, --accounts (d1 | objects); run `main` when
// the file is the entry point and exit 0 when every invariant held (or the run reports none), 1 when
// one failed, 2 when the run itself broke.
import path from "node:path";
import { pathToFileURL } from "node:url";

/** `num`: flag → option name of a number, e.g. { "--seed": "seed" }. */
export function parseArgs(argv, num) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (num[a]) o[num[a]] = Number(argv[++i]);
    else if (a === "--root") o.root = path.resolve(argv[++i]);
    else if (a === "--base") o.base = path.resolve(argv[++i]);
    else if (a === "--json") o.json = path.resolve(argv[++i]);
    else if (a === "--accounts") o.accounts = argv[++i];
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** Runs `main(options)` when `metaUrl` is the script node was started with. */
export function runWhenMain(metaUrl, main, num) {
  if (!process.argv[1] || metaUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  main(parseArgs(process.argv.slice(2), num)).then(
    (r) => process.exit(r.passed === false ? 1 : 0),
    (err) => {
      console.error(err);
      process.exit(2);
    },
  );
}
