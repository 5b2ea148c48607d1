/**
 * What the invite screens and the console's invite section show and check before anything is
 * sent (web/src/lib/rate.ts, web/src/features/invite/display.ts,
 * web/src/features/operator/inviteSettings.ts): rates as percents, the progress to the next agent
 * level, the share sheet's fallback, and the settings form's rules, which mirror the server's.
 */
import { describe, expect, it } from "vitest";
import { formatRate, percentToRate, rateToPercent } from "../../web/src/lib/rate.ts";
import { agentProgress, canShare, pagesInOrder, shareData } from "../../web/src/features/invite/display.ts";
import { beijingDay, isSettleableDay, settingsProblem, totalPercent, type SettingsForm } from "../../web/src/features/operator/inviteSettings.ts";

describe("rates on screen", () => {
  it("shows the API's fractions as percents, exactly", () => {
    expect(formatRate("0.20")).toBe("20%");
    expect(formatRate("0.05")).toBe("5%");
    expect(formatRate("0.005")).toBe("0.5%");
    expect(formatRate("0.0125")).toBe("1.25%");
    expect(formatRate("0.30")).toBe("30%");
    expect(formatRate("1")).toBe("100%");
    expect(formatRate("0")).toBe("0%");
    expect(formatRate("abc")).toBe("--");
  });

  it("sends typed percents as the fractions the API takes, without float noise", () => {
    expect(percentToRate("20")).toBe("0.2");
    expect(percentToRate("0.5")).toBe("0.005");
    expect(percentToRate("1.25")).toBe("0.0125");
    expect(percentToRate("100")).toBe("1");
    expect(percentToRate("0")).toBe("0");
    expect(percentToRate("100.01")).toBeNull();
    expect(percentToRate("1.255")).toBeNull();
    expect(percentToRate("-1")).toBeNull();
    expect(percentToRate("")).toBeNull();
    // and back
    expect(rateToPercent(percentToRate("0.07"))).toBe("0.07");
  });
});

describe("progress to the next agent level", () => {
  it("reads the share of the threshold reached and what is missing, rounded up to the cent", () => {
    expect(agentProgress("40", "100")).toEqual({ percent: 40, missing: "60.00" });
    expect(agentProgress("99.999", "100")).toEqual({ percent: 99, missing: "0.01" });
    expect(agentProgress("0", "1000")).toEqual({ percent: 0, missing: "1000.00" });
    expect(agentProgress("0.00000001", "100")).toEqual({ percent: 0, missing: "100.00" });
  });

  it("is full with nothing missing once the threshold is reached", () => {
    expect(agentProgress("100", "100")).toEqual({ percent: 100, missing: "0.00" });
    expect(agentProgress("250000", "200000")).toEqual({ percent: 100, missing: "0.00" });
  });

  it("treats a value that is not a decimal as nothing reached", () => {
    expect(agentProgress("", "100")).toEqual({ percent: 0, missing: "100.00" });
  });
});

describe("sharing the link", () => {
  const data = shareData("Invitation", "Join me with code AB12CD", "https://x.test/#/register?code=AB12CD");

  it("hands the link as the url and the code in the text", () => {
    expect(data).toEqual({ title: "Invitation", text: "Join me with code AB12CD", url: "https://x.test/#/register?code=AB12CD" });
  });

  it("opens the share sheet only where the browser has one that takes the data", () => {
    const share = () => Promise.resolve();
    expect(canShare(undefined, data)).toBe(false);
    expect(canShare({ share: undefined as unknown as Navigator["share"], canShare: undefined as unknown as Navigator["canShare"] }, data)).toBe(false);
    expect(canShare({ share, canShare: undefined as unknown as Navigator["canShare"] }, data)).toBe(true);
    expect(canShare({ share, canShare: () => false }, data)).toBe(false);
    expect(
      canShare(
        {
          share,
          canShare: () => {
            throw new Error("no");
          },
        },
        data,
      ),
    ).toBe(false);
  });
});

describe("team and rebate pages", () => {
  it("reads pages of rows without ids in order, and ends the list when a page brings none", () => {
    expect(pagesInOrder([{ total: 3, lists: ["a", "b"] }, { total: 3, lists: ["c"] }])).toEqual({ items: ["a", "b", "c"], total: 3 });
    // rows were removed while scrolling: the empty page ends the list at what is loaded
    expect(pagesInOrder([{ total: 5, lists: ["a", "b"] }, { total: 5, lists: [] }])).toEqual({ items: ["a", "b"], total: 2 });
  });
});

describe("the console's invite settings form", () => {
  const defaults = (): SettingsForm => ({
    levels: ["20", "5", "2"],
    agents: [
      { threshold: "100", extra: "0.5" },
      { threshold: "1000", extra: "1" },
      { threshold: "10000", extra: "1.5" },
      { threshold: "50000", extra: "2" },
      { threshold: "200000", extra: "3" },
    ],
    reason: "yearly review",
  });

  it("accepts the published defaults, whose total is exactly the 30 % cap", () => {
    expect(totalPercent(defaults())).toBe("30");
    expect(settingsProblem(defaults(), "0.30")).toBeNull();
  });

  it("refuses a total above the cap and names it", () => {
    const f = defaults();
    f.levels[0] = "20.01";
    expect(settingsProblem(f, "0.30")).toEqual({ kind: "total", total: "30.01" });
  });

  it("refuses a rate that is not a percent with at most 2 decimals, naming the level", () => {
    const f = defaults();
    f.levels[1] = "5.001";
    expect(settingsProblem(f, "0.30")).toEqual({ kind: "rate", level: 2 });
    expect(totalPercent(f)).toBeNull();
  });

  it("wants thresholds rising and extra shares not falling with the agent level", () => {
    const rising = defaults();
    rising.agents[2] = { threshold: "1000", extra: "1.5" };
    expect(settingsProblem(rising, "0.30")).toEqual({ kind: "thresholds_rising", level: 3 });
    const falling = defaults();
    falling.agents[3] = { threshold: "50000", extra: "1" };
    expect(settingsProblem(falling, "0.30")).toEqual({ kind: "extras_falling", level: 4 });
    const bad = defaults();
    bad.agents[0] = { threshold: "1e3", extra: "0.5" };
    expect(settingsProblem(bad, "0.30")).toEqual({ kind: "threshold", level: 1 });
  });

  it("wants a reason, as every operator action is audited", () => {
    const f = defaults();
    f.reason = "  ";
    expect(settingsProblem(f, "0.30")).toEqual({ kind: "reason" });
  });
});

describe("Beijing days", () => {
  // 2026-11-25 17:00 UTC is 2026-11-26 01:00 in Beijing
  const now = Date.UTC(2026, 10, 25, 17, 0, 0);

  it("names today, tomorrow (when a settings change starts) and yesterday in Beijing", () => {
    expect(beijingDay(now)).toBe("2026-11-26");
    expect(beijingDay(now, 1)).toBe("2026-11-27");
    expect(beijingDay(now, -1)).toBe("2026-11-25");
  });

  it("lets the operator settle only a real day in Beijing, today (up to now) or before", () => {
    expect(isSettleableDay("2026-11-25", now)).toBe(true);
    expect(isSettleableDay("2026-11-26", now)).toBe(true);
    expect(isSettleableDay("2026-11-27", now)).toBe(false);
    expect(isSettleableDay("2026-11-31", now)).toBe(false);
    expect(isSettleableDay("26-11-25", now)).toBe(false);
  });
});
