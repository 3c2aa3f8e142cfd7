/**
 * A once-a-second countdown to a moment (a quote's `expiresAt`), paused while the host is off the
 * page. `text` is the time left as `m:ss`. (What happens at zero is the server's to say: the
 * session's status stream reports `expired`.)
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class CountdownController implements ReactiveController {
  /** Whole seconds left, never negative. */
  remaining = 0;
  private target = 0;
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** Counts down to the timestamp `iso`, or stops when it is undefined. */
  set(iso?: string): void {
    const target = iso ? Date.parse(iso) : 0;
    if (target != this.target) {
      this.target = target;
      this.hostConnected();
    }
  }

  /** The time left as `m:ss` (minutes may pass 59). */
  get text(): string {
    return `${Math.floor(this.remaining / 60)}:${String(this.remaining % 60).padStart(2, '0')}`;
  }

  hostConnected(): void {
    this.hostDisconnected();
    if (this.target) this.timer = setInterval(() => this.tick(), 1000);
    this.tick();
  }

  hostDisconnected(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    this.remaining = Math.max(0, Math.ceil((this.target - Date.now()) / 1000));
    this.host.requestUpdate();
    if (!this.remaining) this.hostDisconnected();
  }
}
