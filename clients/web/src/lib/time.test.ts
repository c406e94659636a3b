import { describe, expect, it } from "vitest";
import { formatSecond } from "./time";

describe("formatSecond", () => {
  it("reads as a clock: minutes and seconds, hours past the hour", () => {
    expect(formatSecond(0)).toBe("0:00");
    expect(formatSecond(724)).toBe("12:04");
    expect(formatSecond(724.9)).toBe("12:04");
    expect(formatSecond(3729)).toBe("1:02:09");
  });

  it("never shows a negative time", () => {
    expect(formatSecond(-5)).toBe("0:00");
  });
});
