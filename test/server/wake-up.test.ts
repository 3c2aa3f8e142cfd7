/**
 * The workers' wake-up: a sleep that ends at its time or at a wake, whichever comes first, and a
 * latch that tells a loop it was woken during a round (so that nudge is not slept through).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWakeUp } from '../../src/server/wake-up.js';

describe('createWakeUp', () => {
  it('a sleep ends by itself at its time', async () => {
    const alarm = createWakeUp();
    await alarm.sleep(5);
    assert.equal(alarm.woken, false);
  });

  it('a wake ends a long sleep at once, and leaves no timer holding the process', async () => {
    const alarm = createWakeUp();
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    let ended = false;
    const sleeping = alarm.sleep(3_600_000).then(() => (ended = true));
    await Promise.resolve();
    assert.equal(ended, false);
    assert.equal(timers(), before + 1);
    alarm.wake();
    await sleeping;
    assert.equal(ended, true);
    assert.equal(timers(), before, 'the hour-long timer is cleared, not left to hold the process');
  });

  it('remembers a wake that came while no sleep was under way, until reset', async () => {
    const alarm = createWakeUp();
    alarm.wake(); // nothing sleeps: harmless
    assert.equal(alarm.woken, true);
    alarm.reset();
    assert.equal(alarm.woken, false);
    // A loop: reset, a round during which work arrives, then no sleep because it was woken.
    const rounds: string[] = [];
    let work = 1;
    const round = async () => {
      rounds.push('round');
      if (work-- === 1) alarm.wake(); // a nudge while the round runs
    };
    for (let i = 0; i < 2; i++) {
      alarm.reset();
      await round();
      if (alarm.woken) continue;
      rounds.push('sleep');
      await alarm.sleep(1);
    }
    assert.deepEqual(rounds, ['round', 'round', 'sleep']);
  });

  it('a wake ends only the sleep under way, not the next one', async () => {
    const alarm = createWakeUp();
    const first = alarm.sleep(3_600_000);
    alarm.wake();
    await first;
    let second = false;
    const next = alarm.sleep(20).then(() => (second = true));
    await Promise.resolve();
    assert.equal(second, false, 'the earlier wake does not end a later sleep');
    await next;
  });
});
