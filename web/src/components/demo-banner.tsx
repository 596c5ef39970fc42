/**
 * Every page of a demo session says plainly that its model is scripted (SPEC §10): the session
 * page, its task reviews and its session review all sit under this banner.
 */
import { useQuery } from '@tanstack/react-query';
import { DEMO_LABEL } from '../../../shared/demo.ts';
import { sessionDetailQuery } from '../api/queries.ts';
import type { Route } from '../paths.ts';

export function sessionIdOf(route: Route): string | null {
  return route.name === 'session' || route.name === 'session-review' || route.name === 'task-review' ? route.id : null;
}

export function DemoBanner({ route }: { route: Route }) {
  const id = sessionIdOf(route);
  const detail = useQuery({ ...sessionDetailQuery(id ?? ''), enabled: id !== null });
  if (id === null || detail.data?.demo !== true) return null;
  return (
    // A landmark of its own, so screen reader users meet it among the page's regions.
    <aside className="demo-banner" aria-label="Demo session" data-testid="demo-banner">
      {DEMO_LABEL}: every reply in this session is written in advance, so it shows how Tilth works, not what a model would do.
    </aside>
  );
}
