/**
 * Where the dashboard links to: the review pages (built in the review issue; until its routes
 * land these addresses show the not-found page).
 */
export const reviewPaths = {
  session: (id: string) => `/sessions/${encodeURIComponent(id)}/review`,
  task: (id: string, taskId: string) => `/sessions/${encodeURIComponent(id)}/tasks/${encodeURIComponent(taskId)}`,
};
