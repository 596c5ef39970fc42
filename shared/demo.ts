/** How the demo's model is named to the user, on every page of a demo session. */
export const DEMO_LABEL = 'demo model — scripted, not AI';
