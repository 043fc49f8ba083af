/**
 * Dollars as every document writes them: to the micro-dollar, so sums carry no floating-point noise
 * (0.1 + 0.2 prints as 0.3). Applied once, when a sum is printed or kept, never to each addend.
 */
export const money = (usd: number): number => Math.round(usd * 1e6) / 1e6;
