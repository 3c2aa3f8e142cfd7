/**
 * A short-lived confirmation (e.g. "Copied" on the button just used): `current` holds its key
 * for `duration` ms.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class FlashController implements ReactiveController {
  /** The key shown now, or ''. */
  current = '';
  private timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly duration = 2000,
  ) {
    host.addController(this);
  }

  show(key = ''): void {
    clearTimeout(this.timer);
    this.current = key;
    this.host.requestUpdate();
    if (key) this.timer = setTimeout(() => this.show(), this.duration);
  }

  hostDisconnected(): void {
    this.show();
  }
}
