/**
 * The vector scaled to length 1 (so that cosine similarity is a plain dot product), or null for a vector that
 * cannot be (empty, all zeros, or holding a non-finite number).
 */
export function l2Normalize(vector: readonly number[]): number[] | null {
  let sumOfSquares = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) return null;
    sumOfSquares += value * value;
  }
  if (vector.length === 0 || sumOfSquares === 0) return null;
  const length = Math.sqrt(sumOfSquares);
  return vector.map((value) => value / length);
}
