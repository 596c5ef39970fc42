/**
 * Holds one dashboard's state between the session's event store and React. It is fed from the
 * session store's own listener, in the same animation frame the session store flushes in, so the
 * page and the dashboard render together: at most once per frame, never once per event.
 */
import { dashboardReducer, initialDashboard, type DashboardAction, type DashboardState } from './dashboard-state.ts';

export class DashboardStore {
  private state: DashboardState = initialDashboard;
  private readonly listeners = new Set<() => void>();

  readonly getSnapshot = (): DashboardState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  dispatch(action: DashboardAction): void {
    const next = dashboardReducer(this.state, action);
    if (next === this.state) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }
}
