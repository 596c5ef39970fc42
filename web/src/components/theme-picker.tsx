import { setThemeChoice, THEME_CHOICES, type ThemeChoice, useThemeChoice } from '../theme.ts';

const LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The header's colour theme choice: System follows the operating system's light or dark setting. */
export function ThemePicker() {
  const choice = useThemeChoice();
  return (
    <label className="theme-picker">
      <span className="visually-hidden">Colour theme</span>
      <select
        className="input select-small"
        value={choice}
        onChange={(e) => setThemeChoice(THEME_CHOICES.find((c) => c === e.target.value) ?? 'system')}
        data-testid="theme-picker"
      >
        {THEME_CHOICES.map((c) => (
          <option key={c} value={c}>
            {LABELS[c]}
          </option>
        ))}
      </select>
    </label>
  );
}
