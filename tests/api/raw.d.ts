/** Files imported as text through Vite's `?raw` suffix (the tests read wrangler.toml this way). */
declare module "*?raw" {
  const text: string;
  export default text;
}
