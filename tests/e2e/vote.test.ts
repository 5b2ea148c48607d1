/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Listing votes in a real browser at phone size (issue #19 §3), in English and in Chinese: a
 * visitor reads the demo round's rules, the advisory note and the public tally without logging in;
 * a verified demo user finds "Listing votes" under Earn on the home screen, votes for a candidate
 * through the confirmation sheet that states the 10 USDT hold, sees the tally move by one and their
 * hold; a second vote in the same round holds nothing more; the personal centre lists Earn too; the
 * operator console lists the round.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";

useExchange();

const candidate = (page: Page, symbol: string) => page.locator(`[data-testid="vote-candidate-${symbol}"]`);
const tallyOf = async (page: Page, symbol: string) => Number(/\d+/.exec(await candidate(page, symbol).locator('[data-testid="vote-tally"]').innerText())?.[0]);

interface Words {
  advisory: string;
  earn: string;
  hold: string;
  covered: string;
  voted: string;
}

async function voteJourney(lang: "en" | "zh", account: string, symbols: [string, string], words: Words) {
  // A visitor, logged out: the rules, the advisory note and the public tally.
  const visitor = await openPhone(browser, lang);
  await visitor.page.goto(`${server.baseUrl}/#/vote`);
  await visitor.page.locator('[data-testid="vote-advisory"]').getByText(words.advisory).waitFor();
  await candidate(visitor.page, "DOT").waitFor();
  expect(await visitor.page.locator('[data-testid="vote-min-balance"]').first().innerText()).toBe("10 USDT");
  await snap(visitor.page, `vote-public-${lang}`);
  expect(visitor.errors).toEqual([]);

  // A verified demo user finds the product under Earn on the home screen.
  const token = await loginViaApi(server.baseUrl, account, "Demo1234");
  const { page, errors } = await openPhone(browser, lang, token);
  await page.goto(`${server.baseUrl}/#/`);
  const earn = page.locator('[data-testid="earn-tiles"]');
  await earn.getByText(words.earn).waitFor();
  await earn.scrollIntoViewIfNeeded();
  await snap(page, `vote-home-earn-${lang}`);
  await page.click('[data-testid="earn-entry-vote"]');
  await waitForRoute(page, /^#\/vote$/);

  const [first, second] = symbols;
  await candidate(page, first).locator(`[data-testid="vote-cast-${first}"]`).waitFor();
  const before = await tallyOf(page, first);
  const votersBefore = Number(await page.locator('[data-testid="vote-voters"]').first().innerText());

  // The confirmation sheet states the hold before anything moves.
  await page.click(`[data-testid="vote-cast-${first}"]`);
  const sheet = page.locator('[data-testid="vote-confirm"]');
  await sheet.waitFor();
  expect(await sheet.locator('[data-testid="vote-confirm-amount"]').innerText()).toBe("10 USDT");
  expect(await sheet.locator('[data-testid="vote-confirm-hold"]').innerText()).toContain(words.hold);
  await snap(page, `vote-confirm-${lang}`);
  await page.click('[data-testid="vote-confirm-button"]');
  await sheet.waitFor({ state: "detached" });

  // The tally moves by one, the vote shows as one's own, and the hold is stated.
  await candidate(page, first).locator('[data-testid="vote-voted"]').getByText(words.voted).waitFor();
  await page.waitForFunction(([sym, n]) => {
    const t = document.querySelector(`[data-testid="vote-candidate-${sym}"] [data-testid="vote-tally"]`)?.textContent ?? "";
    return Number(/\d+/.exec(t)?.[0]) === n;
  }, [first, before + 1] as const);
  expect(Number(await page.locator('[data-testid="vote-voters"]').first().innerText())).toBe(votersBefore + 1);
  await page.locator('[data-testid="vote-my-hold"]').getByText("10 USDT").waitFor();
  await snap(page, `vote-voted-${lang}`);
  await candidate(page, "LINK").scrollIntoViewIfNeeded();
  await snap(page, `vote-tally-${lang}`);

  // A second candidate in the same round: nothing more is held.
  await page.click(`[data-testid="vote-cast-${second}"]`);
  await sheet.waitFor();
  expect(await sheet.locator('[data-testid="vote-confirm-amount"]').innerText()).toBe("0");
  expect(await sheet.locator('[data-testid="vote-confirm-hold"]').innerText()).toContain(words.covered);
  await page.click('[data-testid="vote-confirm-button"]');
  await candidate(page, second).locator('[data-testid="vote-voted"]').waitFor();
  expect(Number(await page.locator('[data-testid="vote-voters"]').first().innerText())).toBe(votersBefore + 1);

  // The server agrees: one hold of 10 USDT for the round, two votes.
  const mine = await fetch(new URL("/api/vote/rounds", server.baseUrl), { headers: { authorization: token, lang } });
  const round = ((await mine.json()) as { message: { data: { mine: { held: string; candidate_ids: number[] } }[] } }).message.data[0]!;
  expect(round.mine.held).toBe("10");
  expect(round.mine.candidate_ids).toHaveLength(2);

  // The personal centre lists Earn too.
  await page.goto(`${server.baseUrl}/#/personal`);
  await page.locator('[data-testid="earn-rows"] [data-testid="earn-entry-vote"]').waitFor();
  await page.locator('[data-testid="earn-rows"]').scrollIntoViewIfNeeded();
  await snap(page, `vote-personal-earn-${lang}`);
  expect(errors).toEqual([]);
}

describe("voting for a listing", () => {
  it("in English: rules and public tally for a visitor; demo1 votes from Earn through a sheet stating the 10 USDT hold, the tally moves by one, a second vote holds nothing more", async () => {
    await voteJourney("en", "demo1@exchange.test", ["DOT", "ADA"], {
      advisory: "The result does not decide a listing",
      earn: "Listing votes",
      hold: "10 USDT will be held (frozen) in your spot account",
      covered: "Nothing more is held",
      voted: "Voted",
    });
  });

  it("in Chinese: the same journey for demo2", async () => {
    await voteJourney("zh", "demo2@exchange.test", ["DOT", "LINK"], {
      advisory: "投票结果不决定是否上币",
      earn: "上币投票",
      hold: "10 USDT 将从现在起在您的币币账户中冻结",
      covered: "不再额外冻结",
      voted: "已投票",
    });
  });

  it("lists the round with its tally in the operator console", async () => {
    const token = await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234");
    const { page, errors } = await openPhone(browser, "en", token);
    await page.goto(`${server.baseUrl}/#/admin/vote`);
    await page.locator('[data-testid="op-vote"]').getByText("Which coin should we list next?").waitFor();
    await page.locator('[data-testid="op-vote-close"]').first().waitFor();
    await snap(page, "vote-console-en");
    await page.click('[data-testid="op-vote-new"]');
    await page.locator('[data-testid="vote-create-dialog"]').waitFor();
    await snap(page, "vote-console-create-en");
    expect(errors).toEqual([]);
  });
});
