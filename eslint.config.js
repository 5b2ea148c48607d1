// Lint rules that keep the architecture honest (STYLE.md "Layout shows the architecture"):
// import boundaries between folders, no import cycles, React hooks rules, and typescript-eslint's
// recommended set. `npm run lint` runs it; `npm run check` and .ci/run include it.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { importX, createNodeResolver } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const featuresDir = "./web/src/features";
const features = readdirSync(featuresDir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

/** One zone per feature: it may import itself, never another feature (shared code goes to lib/ or components/). */
const featureZones = features.map((name) => ({
  target: `${featuresDir}/${name}`,
  from: featuresDir,
  except: [`./${name}`],
  message: "A feature never imports another feature: move the shared piece to web/src/lib or web/src/components.",
}));

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      ".wrangler/",
      "test-results/",
      "bench/results/",
      "web/src/paraglide/",
      "worker/worker-configuration.d.ts",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver()],
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      // Not parsed when following imports: packages, and paraglide's generated message modules
      // (thousands of files; they import nothing of ours, so they cannot close a cycle).
      "import-x/ignore": ["node_modules", "web/src/paraglide/"],
    },
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node },
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-self-import": "error",
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            ...featureZones,
            {
              target: ["./web/src/lib", "./web/src/components", "./web/src/i18n"],
              from: ["./web/src/features", "./web/src/app"],
              message: "Shared web code never imports a feature or the app shell.",
            },
            {
              target: featuresDir,
              from: "./web/src/app",
              message: "A feature never imports the app shell; the shell imports features.",
            },
            {
              target: "./web",
              from: ["./worker", "./durable", "./tests", "./scripts", "./bench"],
              message: "The web app talks to the Worker over HTTP/WebSocket; the shared contract is schemas/.",
            },
            {
              target: ["./worker", "./durable"],
              from: ["./web", "./tests", "./scripts", "./bench", "./sim"],
              message: "The Worker and Durable Objects never import the web app, tests or tools.",
            },
            {
              target: ["./worker/lib", "./worker/db"],
              from: ["./worker/domain", "./worker/routes", "./worker/jobs"],
              message: "worker/lib is infrastructure (middleware, errors, answers, crypto, the ledger): it never imports the domain, routes or jobs.",
            },
            {
              target: "./worker/domain",
              from: ["./worker/routes", "./worker/jobs", "./worker/app.ts", "./worker/index.ts", "./worker/scheduled.ts"],
              message: "worker/domain is called by routes and jobs, never the other way round.",
            },
            {
              target: "./durable/engine",
              from: ".",
              except: ["./durable/engine", "./schemas"],
              message: "durable/engine is pure: it imports only itself and schemas/ (no packages, no Workers code).",
            },
            {
              target: "./durable/money",
              from: ".",
              except: ["./durable/money"],
              message: "durable/money is the pure money core: it imports only itself (its ports stand for SQL, the clock, randomness and the transport).",
            },
            {
              target: "./schemas",
              from: ".",
              except: ["./schemas", "./node_modules"],
              message: "schemas/ is the contract: it imports nothing of ours, only zod and npm packages.",
            },
          ],
        },
      ],
      // Tools and benches swallow best-effort failures (a process already gone, a probe that
      // did not answer) with `catch {}`; other empty blocks are still errors.
      "no-empty": ["error", { allowEmptyCatch: true }],
      // Unused names: allowed when deliberately marked with a leading underscore.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Specifiers like `cloudflare:workers` resolve to no file, so no-restricted-paths cannot see them.
    files: ["durable/engine/**", "durable/money/**", "schemas/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(cloudflare|node):",
              message: "durable/engine and durable/money run in plain Node and workerd, schemas/ in the browser too: no runtime-specific imports.",
            },
          ],
        },
      ],
    },
  },
  {
    // Routes parse, authorise, call worker/domain/ and answer: no SQL (STYLE.md "worker/routes/").
    files: ["worker/routes/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^(prepare|batch|exec)$/]",
          message: "No SQL in a route file: move the query into worker/domain/<area>/ and call it.",
        },
      ],
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["drizzle-orm", "drizzle-orm/*"], message: "No SQL in a route file: queries live in worker/domain/<area>/." },
            { regex: "/db/", message: "No SQL in a route file: the database client is for worker/domain/<area>/." },
          ],
        },
      ],
    },
  },
  {
    // Tests read untyped JSON responses from the real API (`r.body.message...`) and check them
    // against literal values; typing each response shape there would restate the schemas. Code
    // that ships (worker/, durable/, schemas/, web/) keeps the rule.
    files: ["tests/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["web/src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
);
