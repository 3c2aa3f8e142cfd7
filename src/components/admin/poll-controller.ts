/**
 * Repeats a task every `interval` ms while it is wanted (`setActive(true)`), the host is on the page
 * and the page is visible (a background browser tab asks nothing; polling picks up when it is shown
 * again). The next run is scheduled only once the previous one has settled, so slow answers never
 * pile up and two runs never overlap.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class PollController implements ReactiveController {
  private active = false;
  private connected = false;
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly visibilityChanged = () => this.schedule();

  constructor(
    host: ReactiveControllerHost,
    private readonly task: () => Promise<unknown>,
    private readonly interval: () => number,
  ) {
    host.addController(this);
  }

  /** True while a next run is scheduled or wanted. */
  get polling(): boolean {
    return this.active && this.connected;
  }

  /** Starts (or keeps) polling when `wanted`, stops otherwise. */
  setActive(wanted: boolean): void {
    if (wanted === this.active) return;
    this.active = wanted;
    this.schedule();
  }

  hostConnected(): void {
    this.connected = true;
    document.addEventListener('visibilitychange', this.visibilityChanged);
    this.schedule();
  }

  hostDisconnected(): void {
    this.connected = false;
    document.removeEventListener('visibilitychange', this.visibilityChanged);
    this.schedule();
  }

  /** Sets the timer of the next run when one is wanted, clears it otherwise. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // A run in flight schedules the next one when it settles.
    if (!this.polling || this.running || document.hidden) return;
    this.timer = setTimeout(() => void this.run(), Math.max(250, this.interval()));
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    try {
      await this.task();
    } finally {
      this.running = false;
      // The task may have turned polling off (nothing pending any more): `schedule` checks.
      this.schedule();
    }
  }
}
