/**
 * The team screen's level tab, kept while the app runs: coming back from another screen shows
 * the level one was looking at.
 */
import { atom } from "nanostores";
import type { InviteLevel } from "../../../../schemas/invite.ts";

export const $teamLevel = atom<InviteLevel>(1);
