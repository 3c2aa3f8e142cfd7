/**
 * Repeats a task every `interval` ms while it is wanted (`setActive(true)`) and the host is on the
 * page. The next run is scheduled only once the previous one has settled, so slow answers never pile up.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class PollController implements ReactiveController {
  private active = false;
  private connected = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

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
    if (wanted) this.schedule();
    else this.stop();
  }

  hostConnected(): void {
    this.connected = true;
    this.schedule();
  }

  hostDisconnected(): void {
    this.connected = false;
    this.stop();
  }

  private schedule(): void {
    this.stop();
    if (!this.active || !this.connected) return;
    this.timer = setTimeout(async () => {
      this.timer = undefined;
      try {
        await this.task();
      } finally {
        // The task may have turned polling off (nothing pending any more); schedule only if still wanted.
        if (this.timer === undefined) this.schedule();
      }
    }, Math.max(250, this.interval()));
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
