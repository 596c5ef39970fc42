// Runs before the first paint (a blocking script in <head>; the CSP allows no inline script), so a
// dark page never flashes light. It only sets the attribute the CSS reads; web/src/theme.ts owns
// the choice from then on and keeps the same key and rule.
(() => {
  let choice = 'system';
  try {
    choice = localStorage.getItem('tilth.theme') ?? 'system';
  } catch {
    // Storage can be off (private windows, policies): follow the system.
  }
  const dark = choice === 'dark' || (choice !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
})();
