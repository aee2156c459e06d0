// When the index's helper thread may be used: another core must be free of other processes' work.
import { describe, expect, it } from 'vitest';
import { coreFree, type CpuTimes } from '../../src/store/sync.js';

// 300 ms on two cores: 60 ticks of /proc/stat in all (USER_HZ 100).
const start: CpuTimes = { idle: 1000, total: 5000, ours: 10 };
const after = (busy: number, ours: number): CpuTimes => ({ idle: start.idle + 60 - busy, total: start.total + 60, ours: start.ours + ours });

describe('coreFree', () => {
  it('our main thread on one core and the other idle: free', () => {
    expect(coreFree(start, after(30, 30), 2)).toBe(true);
  });

  it('our own helper loading its code on the other core does not make it taken', () => {
    // Both cores busy, all of it ours: the old reading of idle time alone said no core was free.
    expect(coreFree(start, after(60, 60), 2)).toBe(true);
  });

  it('another process on the other core: not free', () => {
    expect(coreFree(start, after(60, 30), 2)).toBe(false);
    expect(coreFree(start, after(50, 30), 2)).toBe(false); // two thirds of a core taken
    expect(coreFree(start, after(40, 30), 2)).toBe(true); // a third taken: more than half a core left
  });

  it('one core: never free beside our main thread', () => {
    const one = (busy: number, ours: number): CpuTimes => ({ idle: start.idle + 30 - busy, total: start.total + 30, ours: start.ours + ours });
    expect(coreFree(start, one(30, 30), 1)).toBe(false);
    expect(coreFree(start, one(15, 15), 1)).toBe(false);
  });

  it('no reading, or too short a span to tell: free', () => {
    expect(coreFree(undefined, after(60, 0), 2)).toBe(true);
    expect(coreFree(start, { ...start, total: start.total + 5 }, 2)).toBe(true);
  });
});
