/**
 * A binary min-heap of non-negative integers, backed by a typed array. Kahn's algorithm in
 * {@link compilePlan} uses it to always release the ready step with the lowest original index, which is
 * what makes the topological order stable (PLAN-7).
 */
export class MinIndexHeap {
  private readonly items: Int32Array;
  private length = 0;

  constructor(capacity: number) {
    this.items = new Int32Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.length;
  }

  push(value: number): void {
    const items = this.items;
    let position = this.length++;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      const above = items[parent]!;
      if (above <= value) break;
      items[position] = above;
      position = parent;
    }
    items[position] = value;
  }

  /** Removes and returns the smallest value; callers check {@link size} first. */
  pop(): number {
    const items = this.items;
    const smallest = items[0]!;
    const last = items[--this.length]!;
    const length = this.length;
    let position = 0;
    for (;;) {
      let child = 2 * position + 1;
      if (child >= length) break;
      if (child + 1 < length && items[child + 1]! < items[child]!) child += 1;
      if (items[child]! >= last) break;
      items[position] = items[child]!;
      position = child;
    }
    if (length > 0) items[position] = last;
    return smallest;
  }
}
