/**
 * Money as the system keeps it: integer cents. A pure entry point (`@study/platform/money`): domains, use cases and
 * the gateway share it.
 */

/** "10.00", "12.50", "-0.50": an amount written from exact cents (no floating-point rounding). */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const absolute = Math.abs(Math.trunc(cents));
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, "0")}`;
}
