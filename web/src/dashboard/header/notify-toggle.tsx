import { setNotifications, useNotifySetting } from './use-notifications.ts';

const HINTS = {
  on: 'You get a browser notification when a question waits, a run ends or stops, or a cap passes 90%.',
  off: 'Get a browser notification when a question waits, a run ends or stops, or a cap passes 90%.',
  blocked: 'The browser blocks notifications for this page; allow them in its site settings.',
  unsupported: 'This browser has no notifications.',
} as const;

export function NotifyToggle() {
  const setting = useNotifySetting();
  return (
    <label className="notify-toggle small" title={HINTS[setting]} data-testid="notify-toggle" data-setting={setting}>
      <input
        type="checkbox"
        checked={setting === 'on'}
        disabled={setting === 'blocked' || setting === 'unsupported'}
        onChange={(e) => void setNotifications(e.target.checked)}
      />
      Notify me
    </label>
  );
}
