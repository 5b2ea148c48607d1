/**
 * The app's line icons (24×24 grid, stroked with currentColor) and the brand mark, as plain data:
 * components/Icon.tsx draws them, and the build draws the same ones into index.html's start-up
 * shell (web/shell.ts), so the shell's header and tab bar match the app's first paint.
 */
export const ICON_PATHS = {
  menu: "M4 7h16M4 12h16M4 17h10",
  back: "M15 5l-7 7 7 7",
  close: "M6 6l12 12M18 6L6 18",
  globe: "M12 3a9 9 0 100 18 9 9 0 000-18zM3.5 9h17M3.5 15h17M12 3c2.5 2.6 3.7 5.6 3.7 9s-1.2 6.4-3.7 9c-2.5-2.6-3.7-5.6-3.7-9s1.2-6.4 3.7-9z",
  chevron: "M9 5l7 7-7 7",
  chevronDown: "M6 9l6 6 6-6",
  check: "M5 12.5l4.5 4.5L19 7.5",
  eye: "M2.5 12S6 5.5 12 5.5 21.5 12 21.5 12 18 18.5 12 18.5 2.5 12 2.5 12zM12 9a3 3 0 110 6 3 3 0 010-6z",
  eyeOff: "M3 3l18 18M10.6 6.1c.5-.1.9-.1 1.4-.1 6 0 9.5 6 9.5 6a17 17 0 01-3 3.7M6.5 6.9C4 8.7 2.5 12 2.5 12S6 18 12 18c1.7 0 3.2-.5 4.5-1.2M9.9 9.9a3 3 0 004.2 4.2",
  home: "M4 11l8-6.5 8 6.5M6 9.5V20h4.5v-5.5h3V20H18V9.5",
  markets: "M4 20V4M4 20h16M8 16l3.5-4 3 2.5L20 8",
  exchange: "M7 4L3.5 7.5 7 11M3.5 7.5H17M17 13l3.5 3.5L17 20M20.5 16.5H7",
  trade: "M12 3.5a8.5 8.5 0 100 17 8.5 8.5 0 000-17zM12 7.5V12l3 2",
  lever: "M4 18.5l6-6 3.5 3.5 6.5-6.5M15 9.5h5v5",
  wallet: "M4 7.5A2.5 2.5 0 016.5 5H18v3M4 7.5V17a2 2 0 002 2h14V8H6.5A2.5 2.5 0 014 7.5zM16 13.5h1.5",
  service: "M5 13v-1a7 7 0 0114 0v1M5 13h2.5v5H6a1 1 0 01-1-1v-4zM19 13h-2.5v5H18a1 1 0 001-1v-4zM16.5 18c0 1.5-1.5 2.5-4.5 2.5",
  help: "M12 3.5a8.5 8.5 0 100 17 8.5 8.5 0 000-17zM9.6 9.5a2.5 2.5 0 014.8 1c0 1.7-2.4 2-2.4 3.5M12 17h.01",
  news: "M5 5h11v14H6a1 1 0 01-1-1V5zM16 9h3v9a1 1 0 01-1 1h-2M8 9h5M8 12.5h5M8 16h3",
  c2c: "M8.5 11a3 3 0 100-6 3 3 0 000 6zM3.5 19c0-2.8 2.2-5 5-5s5 2.2 5 5M15.5 5.5a3 3 0 010 5.5M17 14.3c2 .6 3.5 2.5 3.5 4.7",
  bank: "M3.5 9.5L12 4.5l8.5 5M5 10v7M9.7 10v7M14.3 10v7M19 10v7M3.5 19.5h17",
  shield: "M12 3.5l7 2.7v5.3c0 4.3-2.9 7.8-7 9-4.1-1.2-7-4.7-7-9V6.2l7-2.7zM8.8 12l2.2 2.2 4.2-4.4",
  key: "M14.5 4a5 5 0 100 10 5 5 0 000-10zM11 12.5L4 19.5V21h2.5v-2H9v-2.5h2l1.2-1.2",
  deposit: "M12 4v11M7.5 10.5L12 15l4.5-4.5M5 19.5h14",
  withdraw: "M12 15V4M7.5 8.5L12 4l4.5 4.5M5 19.5h14",
  transfer: "M4 8.5h14.5M15 5l3.5 3.5L15 12M20 15.5H5.5M9 12l-3.5 3.5L9 19",
  records: "M7 3.5h8l4 4V20a.5.5 0 01-.5.5h-11A.5.5 0 017 20V3.5zM15 3.5v4h4M10 11.5h6M10 15h6",
  logout: "M14 4.5H6.5a1 1 0 00-1 1v13a1 1 0 001 1H14M10 12h10.5M17 8.5l3.5 3.5-3.5 3.5",
  user: "M12 12a4 4 0 100-8 4 4 0 000 8zM4.5 20.5c0-4 3.4-6.5 7.5-6.5s7.5 2.5 7.5 6.5",
  refresh: "M19.5 12a7.5 7.5 0 11-2.2-5.3M19.5 4.5v4h-4",
  bell: "M6 16.5V11a6 6 0 0112 0v5.5l1.5 2h-15l1.5-2zM10 20.5a2 2 0 004 0",
  notice: "M4 10v4h3l6 4.5V5.5L7 10H4zM16.5 9a4 4 0 010 6M18.5 6.5a7.5 7.5 0 010 11",
  mail: "M4 6h16v12H4zM4 7l8 6 8-6",
  external: "M14 4.5h5.5V10M19.5 4.5L11 13M17 14v4.5a1 1 0 01-1 1H6a1 1 0 01-1-1V8.5a1 1 0 011-1h4.5",
  build: "M14.7 6.3a4 4 0 00-5.4 5.4L4 17l3 3 5.3-5.3a4 4 0 005.4-5.4l-2.5 2.5-2.4-.6-.6-2.4 2.5-2.5z",
  empty: "M4 13.5l2.5-7.5h11l2.5 7.5M4 13.5V19h16v-5.5M4 13.5h5l1 2h4l1-2h5",
  alert: "M12 4l9 15.5H3L12 4zM12 10v4.5M12 17h.01",
  copy: "M9 9h10.5v10.5H9zM15 9V4.5H4.5V15H9",
  chat: "M4.5 5.5h15v10h-9l-4.5 4v-4h-1.5z",
  image: "M4 5h16v14H4zM4 15.5l4.5-4.5 4 4 2.5-2.5 5 5M15.5 9.5h.01",
  send: "M4 12l16-7.5-6 15.5-2.5-6.5L4 12zM11.5 13.5L20 4.5",
  filter: "M4 6h16M7 12h10M10 18h4",
  gift: "M4 9.5h16v4H4zM5.5 13.5V20h13v-6.5M12 9.5V20M12 9.5C10.5 6 7 5 6.5 7S9 9.5 12 9.5zM12 9.5c1.5-3.5 5-4.5 5.5-2.5S15 9.5 12 9.5z",
  share: "M12 14.5V4M8 7.5L12 3.5l4 4M8.5 10.5H5.5V20h13v-9.5h-3",
  star: "M12 3.8l2.5 5.2 5.7.8-4.1 4 1 5.7L12 16.8l-5.1 2.7 1-5.7-4.1-4 5.7-.8z",
  search: "M10.5 4a6.5 6.5 0 100 13 6.5 6.5 0 000-13zM15.3 15.3L20 20",
} as const;

export type IconName = keyof typeof ICON_PATHS;

/** The brand mark (32×32): a hexagon in the accent colour with an "H" in the accent's ink. */
export const LOGO_PATHS = {
  hexagon: "M16 1.5l12.6 7.25v14.5L16 30.5 3.4 23.25V8.75z",
  letter: "M10.5 9v14M21.5 9v14M10.5 16.5h11",
} as const;
